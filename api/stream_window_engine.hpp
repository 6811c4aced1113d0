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

  std::size_t poll(StreamResults& out) override {
    fired_.clear();
    const std::size_t n = op_.poll(fired_);
    auto& values = std::get<std::vector<typename OutputValue<Output>::type>>(out.values);
    const std::size_t old = out.size();
    if constexpr (SelectingAggregate<A>) out.times.resize(old + n);
    out.specs.resize(old + n);
    out.keys.resize(old + n);
    out.starts.resize(old + n);
    out.ends.resize(old + n);
    values.resize(old + n);
    for (std::size_t i = 0; i < n; ++i) {
      const WindowResult<Output>& r = fired_[i];
      out.specs[old + i] = r.spec;
      out.keys[old + i] = r.key;
      out.starts[old + i] = r.start;
      out.ends[old + i] = r.end;
      if constexpr (SelectingAggregate<A>) {
        values[old + i] = r.value.value;
        out.times[old + i] = r.value.at;
      } else {
        values[old + i] = r.value;
      }
    }
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
  std::vector<WindowResult<Output>> fired_;
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
