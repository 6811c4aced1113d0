// User-defined aggregates in the ready-made StreamWindow (api/stream_window.hpp): any type that
// satisfies StreamAggregate (templates/window/stream_aggregates.hpp: Input, Acc, identity, lift,
// an associative and commutative combine, Output, lower, name) runs on the CPU backend, which is
// instantiated here, in the caller's translation unit; nothing in Sextant's sources changes.
//
//   struct Range {  // max - min of double values
//     static constexpr std::string_view name = "range";
//     using Input = double;
//     struct Acc { double lo, hi; };
//     using Output = double;
//     static Acc identity() { return {INFINITY, -INFINITY}; }
//     static Acc lift(double x) { return {x, x}; }
//     static Acc combine(Acc a, Acc b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
//     static Output lower(Acc a) { return a.hi - a.lo; }
//   };
//   auto op = sextant::window::StreamWindow::with_aggregate<Range>(options);
//
// Input must be one of the four value types (int32, int64, float, double) and Output one of them
// or Selected<V> (a value and its tuple's timestamp, in StreamResults::times). GPUs are refused:
// their kernels are compiled with the aggregate (gpu/window/stream_gpu_*.cu).
#pragma once

#include <memory>
#include <string>

#include "api/stream_window.hpp"
#include "api/stream_window_engine.hpp"
#include "cpu/window/stream_window_cpu.hpp"

namespace sextant::window {

template <StreamAggregate A>
StreamWindow StreamWindow::with_aggregate(const StreamWindowOptions& options,
                                          const StreamDeviceOptions& device) {
  static_assert(WindowValue<typename A::Input>,
                "a stream aggregate's Input must be int32, int64, float or double");
  using OutputColumn = typename OutputValue<typename A::Output>::type;
  static_assert(WindowValue<OutputColumn>,
                "a stream aggregate's Output must be int32, int64, float, double or Selected<Input>");
  check_custom(options, device, A::name);
  return StreamWindow(value_type_of<typename A::Input>, value_type_of<OutputColumn>, std::string(A::name),
                      device,
                      std::make_unique<detail::StreamEngine<CpuStreamBackend, A>>(
                          options, CpuStreamBackend::Config{device.threads}));
}

}  // namespace sextant::window
