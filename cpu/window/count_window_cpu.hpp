// The CPU specialisation of the count-window template (SIMD, on the scheduler's CPU workers): the
// slice hook reduces every slide-long chunk into its partials (C, A) with SIMD; the expand hook
// turns them into windows with the van Herk / Gil-Werman block trick (prefix and suffix scans over
// blocks of q = W / S chunks, then one combine per window), which is exact for min/max and needs no
// inverse, so the same code serves every function and costs O(1) per chunk whatever the fan-out.
// Memory: the input, K results and two partials per chunk (none when S == 1).
//
// One variant per instruction set (CpuCountWindowOn<Isa>, each in its own translation unit,
// registered in count_window_variants.hpp). Both hooks run as the scheduler's codelets with every
// registered variant: each CPU worker measures the variants it can run on trial chunks and keeps the
// fastest (scheduler/task.hpp), and the run's statistics say which ran where.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/device.hpp"
#include "cpu/simd/isa.hpp"
#include "scheduler/team.hpp"
#include "templates/window/chunk_geometry.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window {

// One run as the hooks see it, whatever the aggregate: the columns, the geometry and the
// partials (typed again by the translation unit that visits the aggregate).
struct CpuCountRun {
  CountWindowArgs args;
  ChunkGeometry g;
  void* full = nullptr;  // C: g.chunks accumulators, or null (S == 1: the values are the chunks)
  void* head = nullptr;  // A: g.chunks accumulators, or null when no chunk has a head
  void* acc = nullptr;   // the K accumulators: args.out, or scratch split into values and positions
};

template <class Isa>
struct CpuCountWindowOn {
  static constexpr std::string_view isa = Isa::name;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool fallback = std::is_same_v<Isa, cpu::ScalarIsa>;  // only where no SIMD runs

  int threads = 0;  // run(): CPU cores (0: every core)

  static std::string name() { return "cpu-" + std::string(Isa::name); }
  // This CPU has the instruction set and SEXTANT_SIMD allows it.
  static bool can_run() { return cpu::allowed<Isa>(); }
  bool can_run(const CountWindowProblem&) const { return can_run(); }

  // The hooks over chunks / blocks [begin, end) of a run (count_window_cpu_<isa>.cpp).
  static void slice(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end);
  static void expand(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end);

  // This variant alone on `threads` cores of a scheduler of its own (tests, benchmarks); args.in
  // and args.out in host memory. Throws Error (unsupported) where can_run() is false.
  void run(const CountWindowArgs& args) const;
};

// Each defined in count_window_cpu_<isa>.cpp, built with that instruction set's flags.
#define SEXTANT_COUNT_WINDOW_CPU_HOOKS(Isa)                                                          \
  template <>                                                                                        \
  void CpuCountWindowOn<Isa>::slice(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end); \
  template <>                                                                                        \
  void CpuCountWindowOn<Isa>::expand(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end);
SEXTANT_COUNT_WINDOW_CPU_HOOKS(cpu::ScalarIsa)
SEXTANT_COUNT_WINDOW_CPU_HOOKS(cpu::Avx2Isa)
SEXTANT_COUNT_WINDOW_CPU_HOOKS(cpu::Avx512Isa)
#undef SEXTANT_COUNT_WINDOW_CPU_HOOKS

// A variant's hooks without its type (count_window_variants.hpp lists the types).
struct CpuCountVariant {
  std::string_view name;  // the instruction set
  bool runnable = true;
  bool fallback = false;
  void (*slice)(const CpuCountRun&, std::uint64_t, std::uint64_t) = nullptr;
  void (*expand)(const CpuCountRun&, std::uint64_t, std::uint64_t) = nullptr;
};

template <class V>
CpuCountVariant erase_count_variant() {
  return {V::isa, V::can_run(), V::fallback, &V::slice, &V::expand};
}

// The template on a team's CPU workers with these variants, whatever the column's length: checks
// the columns (check_columns), slices, expands (nothing for K = 0). Returns "" (the team's
// scheduler's statistics say which variants ran).
std::string count_window_on_team(scheduler::SchedulerTeam& team, const CountWindowArgs& args,
                                 std::span<const CpuCountVariant> variants);

// Every registered variant (count_window_variants.hpp) on `threads` CPU workers (0 = every core) of
// a scheduler on machine(); returns what ran, e.g. "cpu (avx512 100.0%)". A column shorter than
// policy::cpu_inline_values runs on the calling thread and never asks for the machine (a process's
// first topology discovery and the workers' start cost milliseconds).
std::string count_window_on_cpu(const CountWindowArgs& args, int threads,
                                const std::function<scheduler::Topology()>& machine);
// The same on the CPU workers of team(), asked for only when the column needs them: a caller that
// keeps the team for several columns starts its workers once, and they keep the rates they
// measured, so later columns skip the variants' trials.
std::string count_window_on_cpu(const CountWindowArgs& args,
                                const std::function<scheduler::SchedulerTeam&()>& team);

}  // namespace sextant::window
