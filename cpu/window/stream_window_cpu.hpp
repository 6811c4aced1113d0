// The CPU specialisation of the stream-window template (paper 000): a pane stage with
// per-thread pane shards (per-key circular buffers of pending panes, AVX2 or scalar hot loop)
// and a window stage with one flat B-PAT per key and spec, parallel across keys.
//
//   StreamWindowOperator<CpuStreamBackend, SumAggregate<std::int64_t>> op(options, {.threads = 4});
#pragma once

#include "cpu/window/stream_pane_stage_cpu.hpp"
#include "cpu/window/stream_window_cpu_config.hpp"
#include "cpu/window/stream_window_stage_cpu.hpp"
#include "templates/window/stream_hooks.hpp"

namespace sextant::window {

struct CpuStreamBackend {
  using Config = CpuStreamConfig;
  // The pane stage passes each tuple's timestamp to lift (argmin, argmax, first, last).
  static constexpr bool lifts_with_context = true;
  template <StreamAggregate A>
  using PaneStage = CpuPaneStage<A>;
  template <StreamAggregate A>
  using WindowStage = CpuWindowStage<A>;
};

// The built-ins' stages are compiled once, in the CPU library (stream_window_cpu.cpp,
// stream_window_cpu_positional_*.cpp).
#define SEXTANT_DECLARE(A)                 \
  extern template class CpuPaneStage<A>;   \
  extern template class CpuWindowStage<A>; \
  static_assert(StreamBackend<CpuStreamBackend, A>);
SEXTANT_STREAM_BUILTIN_AGGREGATES(SEXTANT_DECLARE)
SEXTANT_STREAM_POSITIONAL_AGGREGATES(SEXTANT_DECLARE)
#undef SEXTANT_DECLARE

}  // namespace sextant::window
