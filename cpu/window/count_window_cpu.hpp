// The CPU specialisation of the count-window template (AVX2 + OpenMP, scalar fallback): the
// slice hook reduces every slide-long chunk into its partials (C, A) with SIMD, one chunk per
// iteration of a parallel loop; the expand hook turns them into windows with the van Herk /
// Gil-Werman block trick (prefix and suffix scans over blocks of q = W / S chunks, then one
// combine per window), which is exact for min/max and needs no inverse, so the same code
// serves all four functions and costs O(1) per chunk whatever the fan-out. Memory: the input,
// K results and two partials per chunk (none when S == 1).
#pragma once

#include <string_view>

#include "core/device.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window {

struct CpuCountWindow {
  static constexpr std::string_view name = "cpu";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  int threads = 0;  // 0: OpenMP's default (every core)

  bool can_run(const CountWindowProblem&) const noexcept { return true; }
  // args.in and args.out in host memory; checks them (check_columns) first.
  void run(const CountWindowArgs& args) const;
  // The instruction set run() uses on this CPU ("avx2", "scalar").
  static std::string_view isa();
};
static_assert(CountWindowAlgorithm<CpuCountWindow>);

}  // namespace sextant::window
