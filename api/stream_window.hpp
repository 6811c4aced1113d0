// The stream-window family's front door (paper 000): sliding-window aggregates over
// out-of-order keyed streams, on the CPU or a GPU, without instantiating any template.
// Semantics (alignment, watermarks, lateness, firing, count windows): templates/window/stream_spec.hpp.
//
//   using namespace sextant::window;
//   StreamWindowOptions options;
//   options.specs = {{WindowType::time, 1000, 100}};  // W = 1000, S = 100 time units
//   StreamWindow op(ValueType::int64, StreamAggregateKind::sum, options, {.device = {DeviceKind::cpu}});
//   op.push(StreamBatch<std::int64_t>{keys, timestamps, values, watermarks});  // any number of times
//   op.advance_watermark(5000);                                               // a watermark alone
//   op.finish();                                                              // end of stream
//   StreamResults results;
//   op.poll(results);  // (spec, key, start, end, value) columns; results.sort() for (spec, key, start)
//   std::span<const std::int64_t> sums = results.values_as<std::int64_t>();
//
// A user-defined aggregate (any StreamAggregate type, templates/window/stream_aggregates.hpp, whose
// Output is one of the four value types or Selected<V>) runs on the CPU through the same class:
//   auto op = StreamWindow::with_aggregate<MyAggregate>(options);   // api/stream_window_custom.hpp
//
// Thread safety: one StreamWindow is used by one thread at a time (push, advance_watermark, poll
// and finish change it; the const accessors may run concurrently with each other only); distinct
// operators are independent and may run concurrently.
// Value types: int32, int64, float, double. Result types: sum of integers and count -> int64;
// sum of floats, avg, var -> double; min, max, argmin, argmax, first, last -> the value type, the
// last four with the value's timestamp in StreamResults::times (stream_aggregates.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/device.hpp"
#include "templates/window/count_window.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window {

// Where and how the operator runs.
struct StreamDeviceOptions {
  DeviceId device{};          // cpu (every core) or gpuN
  int threads = 0;            // CPU threads; 0 = every core
  std::size_t max_batch = 0;  // GPU: tuples per device chunk (pushes are split); 0 = the backend's default
};

// A batch whose value column is type-erased (the facade's push takes any of the four types).
struct ErasedStreamBatch {
  std::span<const StreamKey> keys;
  std::span<const std::int64_t> timestamps;
  ColumnView values;
  std::span<const std::int64_t> watermarks;

  ErasedStreamBatch() = default;
  template <WindowValue V>
  ErasedStreamBatch(const StreamBatch<V>& b)  // NOLINT: implicit on purpose
      : keys(b.keys), timestamps(b.timestamps), values(b.values), watermarks(b.watermarks) {}
  std::size_t size() const noexcept { return values.size; }
};

// Emitted windows as columns; the value column has the aggregate's result type.
struct StreamResults {
  ColumnVector<std::uint32_t> specs;  // index into StreamWindowOptions::specs
  ColumnVector<StreamKey> keys;
  ColumnVector<std::int64_t> starts;  // k*S
  ColumnVector<std::int64_t> ends;    // k*S + W (exclusive)
  Column values;
  // argmin, argmax, first, last: the timestamp of the tuple each value comes from; else empty.
  ColumnVector<std::int64_t> times;

  std::size_t size() const noexcept { return keys.size(); }
  void clear();
  // Canonical order: by spec, then key, then start (windows equal in all three keep their
  // order). On `threads` threads (0: every core); throws Error (invalid argument) below 0.
  void sort(int threads = 0);
  // (spec, key) as one number that sorts like the pair: spec * range + (key - low), below 2^bits,
  // for the rows held now (found on `threads` threads).
  struct Groups {
    std::uint64_t low = 0, range = 1;
    unsigned bits = 0;
    std::uint64_t operator()(std::uint32_t spec, StreamKey key) const noexcept {
      return spec * range + (key - low);
    }
  };
  Groups groups(int threads = 0) const;
  // The canonical order as a permutation, the rows left in place: row order[i] comes i-th.
  ColumnVector<std::size_t> order(int threads = 0) const;
  // The values as T (the operator's result_type()), instead of std::get; another T throws
  // Error::argument naming both types.
  template <WindowValue T>
  std::span<const T> values_as() const {
    return column_as<T>(values, "stream-window results");
  }
  ValueType value_type() const noexcept { return type_of(values); }
  // Row i's value, exactly: integers in decimal, floats and doubles shortest round-trip.
  void append_value(std::string& out, std::size_t i) const;
};

// The result type of `kind` over values of type `value`.
ValueType stream_result_type(ValueType value, StreamAggregateKind kind) noexcept;

namespace detail {
class StreamWindowEngine;
}  // namespace detail

template <StreamAggregate A>
struct AggregateTag {};

// Host memory for batch columns: pinned (page-locked) for a GPU operator, so copies to the
// device run at full PCIe speed; 64-byte aligned host memory for the CPU.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(void* data, std::size_t bytes, void (*release)(void*)) noexcept
      : data_(data, release), bytes_(bytes) {}
  void* data() const noexcept { return data_.get(); }
  std::size_t bytes() const noexcept { return bytes_; }
  template <class T>
  std::span<T> as(std::size_t count) const noexcept {
    return {static_cast<T*>(data()), count};
  }

 private:
  std::unique_ptr<void, void (*)(void*)> data_{nullptr, nullptr};
  std::size_t bytes_ = 0;
};

class StreamWindow {
 public:
  // Throws Error for invalid options (naming the parameter and its valid range), a device that
  // does not exist, or a GPU in a build without CUDA (ErrorKind::unsupported).
  StreamWindow(ValueType value_type, StreamAggregateKind aggregate, const StreamWindowOptions& options,
               const StreamDeviceOptions& device = {});
  // A user-defined aggregate on the CPU (device.device must be the CPU; a GPU throws
  // Error::unsupported): instantiated in the caller's translation unit, so it needs
  // api/stream_window_custom.hpp (<sextant/window_custom.hpp>), which defines it.
  template <StreamAggregate A>
  static StreamWindow with_aggregate(const StreamWindowOptions& options,
                                     const StreamDeviceOptions& device = {});

  ~StreamWindow();
  StreamWindow(StreamWindow&&) noexcept;
  StreamWindow& operator=(StreamWindow&&) noexcept;

  // Tuples in arrival order; watermarks travel with them. The values must have the operator's
  // value type. A bad batch (negative timestamp, columns of different lengths) throws and
  // leaves the operator as it was; push after finish throws.
  void push(const ErasedStreamBatch& batch);
  // A watermark without tuples (a source's heartbeat while it has nothing to send): the running
  // maximum like a tuple's watermark (a lower one is ignored and counted), then the windows it
  // completes fire (poll returns them). Count windows ignore watermarks. After finish it throws.
  void advance_watermark(std::int64_t watermark);
  // Appends the windows fired since the last poll (firing order); returns how many.
  std::size_t poll(StreamResults& out);
  // End of stream: every open window fires (time windows).
  void finish();

  StreamCounters counters() const;
  std::int64_t watermark() const;
  const StreamGeometry& geometry() const;
  ValueType value_type() const noexcept { return value_type_; }
  ValueType result_type() const noexcept { return result_type_; }
  // The built-in aggregate; meaningless for a user-defined one (is_custom()).
  StreamAggregateKind aggregate() const noexcept { return aggregate_; }
  bool is_custom() const noexcept { return custom_; }
  // "sum", ..., or a user-defined aggregate's A::name.
  const std::string& aggregate_name() const noexcept { return aggregate_name_; }
  DeviceId device() const noexcept { return device_.device; }
  // "cpu: <pane stage> + <window stage>, 8 threads" and the like.
  std::string describe() const;
  // Memory for `bytes` of batch columns suited to this operator's device (see HostBuffer).
  HostBuffer allocate_host(std::size_t bytes) const;

 private:
  StreamWindow(ValueType value_type, ValueType result_type, std::string name,
               const StreamDeviceOptions& device, std::unique_ptr<detail::StreamWindowEngine> engine);
  // Throws Error::unsupported for a user-defined aggregate on a GPU, Error::argument for threads < 0.
  static void check_custom(const StreamWindowOptions& options, const StreamDeviceOptions& device,
                           std::string_view name);

  ValueType value_type_;
  StreamAggregateKind aggregate_ = StreamAggregateKind::sum;
  ValueType result_type_;
  bool custom_ = false;
  std::string aggregate_name_;
  StreamDeviceOptions device_;
  std::unique_ptr<detail::StreamWindowEngine> engine_;
};

}  // namespace sextant::window
