// The CPU specialisation of MDMC's filter and refine hooks (paper 004, section 5.2): per point
// of S+, a filter on the quad tree's path labels (no coordinate loads) and a refine that walks
// the tree, prunes subtrees that cannot dominate p in a still-open subspace and runs SIMD
// dominance tests on the rest. AVX-512, AVX2 and scalar variants (cpu/simd/isa.hpp).
//
// One MdmcCpu per worker (the template copies a prototype): it owns the worker's scratch,
// allocated on first use and reused for every point (no allocation per point).
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/device.hpp"
#include "core/subspace.hpp"
#include "cpu/simd/isa.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/mdmc.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube {

// Work counters of one worker (for tuning and the experiment drivers).
struct MdmcCpuStats {
  std::uint64_t points = 0;
  std::uint64_t dominance_tests = 0;  // SIMD DTs in the refine
  std::uint64_t applied = 0;          // DT results that were not skipped by the memo or bitmaps
  std::uint64_t rebuilds = 0;         // recomputations of the open-subspace closure

  MdmcCpuStats& operator+=(const MdmcCpuStats& o) noexcept {
    points += o.points;
    dominance_tests += o.dominance_tests;
    applied += o.applied;
    rebuilds += o.rebuilds;
    return *this;
  }
};

// Run-time choices of the CPU hooks.
struct MdmcCpuOptions {
  // Tree levels the label-only filter reads: 1 (medians) .. 3 (full paths). A deeper filter
  // settles more subspaces before the refine but visits every node of its level.
  int filter_levels = policy::MdmcCpuKernel::filter_levels;
};

namespace detail {

// Per-worker bitmaps over the 2^d subspace masks (bit m of word m / 64 = subspace m; bit 0, the
// empty subspace, is kept set in `dominated` and `strict`), plus the refine's memo.
struct MdmcScratch {
  int d = 0;
  int max_level = 0;
  std::vector<std::uint64_t> dominated;  // B_notS: p is dominated in m
  std::vector<std::uint64_t> strict;     // B_notS+: p is strictly dominated in m (down-closed)
  std::vector<std::uint64_t> reachable;  // some still-open subspace is a submask of m (up-closed)
  std::vector<std::uint64_t> initial;    // `dominated` before the first test: bit 0, levels > max_level
  std::vector<std::uint64_t> skyline;    // p is surely in m's skyline: it holds every column's minimum
  std::vector<Mask> memo;                // per le mask: union of the lt masks already applied
  std::vector<Mask> touched;             // le masks with a memo entry (to reset them cheaply), 2^d slots
  std::vector<Word> words;               // the HashCube words of one point
  MdmcCpuStats stats;

  // Sizes everything for (d, max_level); a no-op when already so.
  void prepare(int columns, int levels);
};

// The kernel for one instruction set, defined in mdmc_cpu_<isa>.cpp (compiled for that set).
template <class Isa>
void mdmc_process(const MdmcTasks<MdmcShared>& tasks, const MdmcCpuOptions& options, MdmcScratch& scratch,
                  HashCubePart& out);

void check(const MdmcCpuOptions& options);

}  // namespace detail

// The MDMC CPU hook compiled for one instruction set (cpu/simd/isa.hpp): one variant among those
// the scheduler measures and picks from (cpu/skycube/mdmc_variants.hpp). can_run(): this CPU has
// the set and SEXTANT_SIMD allows it.
template <class Isa>
class MdmcCpuOn {
 public:
  static constexpr std::string_view name = Isa::name;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool fallback = std::is_same_v<Isa, cpu::ScalarIsa>;  // only where no SIMD runs
  static bool can_run() { return cpu::allowed<Isa>(); }

  MdmcCpuOn() = default;
  explicit MdmcCpuOn(const MdmcCpuOptions& options) : options_(options) { detail::check(options); }

  void process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out) {
    scratch_.prepare(tasks.shared.tree.dims(), tasks.shared.max_level);
    if (tasks.begin < tasks.end) detail::mdmc_process<Isa>(tasks, options_, scratch_, out);
  }
  const MdmcCpuStats& stats() const noexcept { return scratch_.stats; }

 private:
  MdmcCpuOptions options_;
  detail::MdmcScratch scratch_;
};

// The MDMC CPU hook on the best instruction set allowed here (the OpenMP entry, tests).
class MdmcCpu {
 public:
  static constexpr std::string_view name = "mdmc-cpu";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  MdmcCpu() = default;
  // Throws Error for options.filter_levels outside 1..3.
  explicit MdmcCpu(const MdmcCpuOptions& options);

  // Filter + refine for the leaf positions [tasks.begin, tasks.end); one insert per point.
  void process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out);

  const MdmcCpuStats& stats() const noexcept { return scratch_.stats; }

 private:
  MdmcCpuOptions options_;
  detail::MdmcScratch scratch_;
};

static_assert(MdmcHook<MdmcCpu, MdmcShared>);

}  // namespace sextant::skycube
