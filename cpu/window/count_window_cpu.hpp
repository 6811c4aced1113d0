// The CPU specialisation of the count-window template (SIMD + OpenMP): the slice hook reduces
// every slide-long chunk into its partials (C, A) with SIMD, one chunk per iteration of a
// parallel loop; the expand hook turns them into windows with the van Herk / Gil-Werman block
// trick (prefix and suffix scans over blocks of q = W / S chunks, then one combine per window),
// which is exact for min/max and needs no inverse, so the same code serves every function and
// costs O(1) per chunk whatever the fan-out. Memory: the input, K results and two partials per
// chunk (none when S == 1).
//
// One variant per instruction set (CpuCountWindowOn<Isa>, each in its own translation unit,
// registered in count_window_variants.hpp); CpuCountWindow runs the first of those this CPU can.
#pragma once

#include <string>
#include <string_view>

#include "core/device.hpp"
#include "cpu/simd/isa.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window {

template <class Isa>
struct CpuCountWindowOn {
  static constexpr std::string_view isa = Isa::name;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  int threads = 0;  // 0: OpenMP's default (every core)

  static std::string name() { return "cpu-" + std::string(Isa::name); }
  // This CPU has the instruction set and SEXTANT_SIMD allows it.
  bool can_run(const CountWindowProblem&) const { return cpu::allowed<Isa>(); }
  // args.in and args.out in host memory; checks them (check_columns) first.
  void run(const CountWindowArgs& args) const;
};

// Each defined in count_window_cpu_<isa>.cpp.
template <>
void CpuCountWindowOn<cpu::ScalarIsa>::run(const CountWindowArgs& args) const;
template <>
void CpuCountWindowOn<cpu::Avx2Isa>::run(const CountWindowArgs& args) const;
template <>
void CpuCountWindowOn<cpu::Avx512Isa>::run(const CountWindowArgs& args) const;

// The variant of the widest instruction set this CPU can run.
struct CpuCountWindow {
  static constexpr std::string_view name = "cpu";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  int threads = 0;

  bool can_run(const CountWindowProblem&) const noexcept { return true; }
  void run(const CountWindowArgs& args) const;
  // The instruction set run() uses on this CPU ("avx512", "avx2", "scalar").
  static std::string_view isa();
};
static_assert(CountWindowAlgorithm<CpuCountWindow>);

}  // namespace sextant::window
