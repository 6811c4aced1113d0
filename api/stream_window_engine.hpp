// Internal to the stream-window facade: the type-erased operator and the one template that
// instantiates StreamWindowOperator for a backend. Each backend's factory lives beside its code
// (cpu/window/stream_engine_cpu_*.cpp, gpu/window/stream_engine_gpu.cpp; without CUDA,
// cpu/cpu_backends.cpp refuses GPUs), so the instantiations compile in parallel and only where
// the backend is built.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/stream_window.hpp"
#include "core/error.hpp"
#include "templates/window/stream_operator.hpp"

namespace sextant::window::detail {

class StreamWindowEngine {
 public:
  virtual ~StreamWindowEngine() = default;
  virtual void push(const ErasedStreamBatch& batch) = 0;
  virtual void advance_watermark(std::int64_t watermark) = 0;
  virtual std::size_t poll(StreamResults& out) = 0;
  virtual void finish() = 0;
  virtual StreamCounters counters() const = 0;
  virtual std::int64_t watermark() const = 0;
  virtual const StreamGeometry& geometry() const = 0;
  virtual std::string stages() const = 0;  // "<pane stage> + <window stage>"
};

template <class Backend, StreamAggregate A>
class StreamEngine final : public StreamWindowEngine {
  using V = typename A::Input;
  using Output = typename A::Output;

 public:
  StreamEngine(const StreamWindowOptions& options, const typename Backend::Config& config)
      : op_(options, config) {}

  void push(const ErasedStreamBatch& b) override {
    op_.push(StreamBatch<V>{b.keys, b.timestamps, {b.values.as<V>(), b.values.size}, b.watermarks});
  }

  void advance_watermark(std::int64_t watermark) override { op_.advance_watermark(watermark); }

  // An empty `out` takes the operator's columns as they are (no copy); else they are appended.
  std::size_t poll(StreamResults& out) override {
    const std::size_t n = op_.poll(fired_);
    auto& values = std::get<ColumnVector<typename WindowColumns<Output>::Value>>(out.values);
    if (out.size() == 0) {
      out.specs.swap(fired_.specs);
      out.keys.swap(fired_.keys);
      out.starts.swap(fired_.starts);
      out.ends.swap(fired_.ends);
      values.swap(fired_.values);
      if constexpr (WindowColumns<Output>::selected) out.times.swap(fired_.times);
    } else {
      const auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
      append(out.specs, fired_.specs);
      append(out.keys, fired_.keys);
      append(out.starts, fired_.starts);
      append(out.ends, fired_.ends);
      append(values, fired_.values);
      if constexpr (WindowColumns<Output>::selected) append(out.times, fired_.times);
    }
    fired_.clear();
    return n;
  }

  void finish() override { op_.finish(); }
  StreamCounters counters() const override { return op_.counters(); }
  std::int64_t watermark() const override { return op_.watermark(); }
  const StreamGeometry& geometry() const override { return op_.geometry(); }
  std::string stages() const override {
    return std::string(StreamWindowOperator<Backend, A>::pane_stage_name) + " + " + op_.window_stage();
  }

 private:
  StreamWindowOperator<Backend, A> op_;
  WindowColumns<Output> fired_;  // empty between polls
};

// Whether a backend's pane stage lifts with the tuple's context (ContextLift aggregates).
template <class Backend>
inline constexpr bool lifts_with_context = requires {
  requires Backend::lifts_with_context;
};

// The engine of `kind` over values V on `Backend`: the six aggregates of one value type.
template <class Backend, WindowValue V>
std::unique_ptr<StreamWindowEngine> make_stream_engine(StreamAggregateKind kind,
                                                       const StreamWindowOptions& options,
                                                       const typename Backend::Config& config) {
  return visit_stream_aggregate<V>(kind, [&](auto aggregate) -> std::unique_ptr<StreamWindowEngine> {
    using A = decltype(aggregate);
    if constexpr (ContextLift<A> && !lifts_with_context<Backend>)
      throw Error::unsupported(std::string(A::name) +
                               " is not available for stream windows on this device (it needs each tuple's "
                               "timestamp in the pane stage); use --device cpu");
    else
      return std::make_unique<StreamEngine<Backend, A>>(options, config);
  });
}

// The backends' factories. The CPU instantiations are split by value family (integers: int32,
// int64; floating: float, double) so that they compile in parallel.
std::unique_ptr<StreamWindowEngine> make_cpu_stream_engine(ValueType type, StreamAggregateKind kind,
                                                           const StreamWindowOptions& options, int threads);
std::unique_ptr<StreamWindowEngine> make_cpu_stream_engine_integer(ValueType type, StreamAggregateKind kind,
                                                                   const StreamWindowOptions& options,
                                                                   int threads);
std::unique_ptr<StreamWindowEngine> make_cpu_stream_engine_floating(ValueType type, StreamAggregateKind kind,
                                                                    const StreamWindowOptions& options,
                                                                    int threads);

// Throws Error::unsupported in a build without CUDA or when the GPU does not exist.
std::unique_ptr<StreamWindowEngine> make_gpu_stream_engine(ValueType type, StreamAggregateKind kind,
                                                           const StreamWindowOptions& options,
                                                           const StreamDeviceOptions& device);
HostBuffer allocate_gpu_host(int gpu, std::size_t bytes);

}  // namespace sextant::window::detail
