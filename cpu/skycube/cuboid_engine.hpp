// The CPU cuboid algorithm behind the cuboid hooks (cuboid_cpu.hpp) and ExtendedSkylineCpu: a Hybrid-style
// (Chester et al., ICDE 2015) tiled skyline over one subspace with mask and code tests before SIMD dominance
// tests (see cuboid_state.hpp). An engine keeps its buffers between runs, so a hook that computes many
// cuboids allocates only while they grow, and hooks take their engines from those kept between
// calls (take_engine below).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "cpu/skycube/cuboid_state.hpp"

namespace sextant::cpu::detail {

// The kernels for the best instruction set allowed here (cpu::dispatch_isa_avx512), for code
// outside the scheduler. Throws Error for an invalid SEXTANT_SIMD.
const CuboidKernels& best_cuboid_kernels();

class CuboidEngine {
 public:
  // classify = true: skyline = S_δ(candidates), extended_only = S+_δ \ S_δ.
  // classify = false: skyline = S+_δ(candidates) (not strictly dominated), extended_only empty.
  // Both lists ascending. `threads` > 1 splits the work over an OpenMP team (see
  // cuboid_state.hpp: interleaved partitions, then a cross phase). `kernels`: the instantiation
  // for one instruction set (cuboid_kernels<Isa>(), the caller checks cpu::allowed<Isa>()).
  // skyline_only (classify mode): only `skyline` is wanted, extended_only may stay incomplete.
  // From CuboidPolicy::prefilter_min_points candidates on, a prefilter (cuboid_state.hpp) removes
  // the candidates a few strong points dominate before the sort.
  void run(const Dataset& data, CandidateList candidates, Mask mask, bool classify, int threads,
           std::vector<PointId>& skyline, std::vector<PointId>& extended_only,
           const CuboidKernels& kernels = best_cuboid_kernels(), bool skyline_only = false);

  // The bytes its buffers hold (their capacity), the sample's engine included.
  std::size_t capacity_bytes() const noexcept;

 private:
  // The candidates no filter point removes, or `candidates` when a prefilter would not pay.
  CandidateList prefilter(const Dataset& data, CandidateList candidates, Mask mask, bool strict, int threads,
                          const CuboidKernels& kernels);
  bool fit_prefilter(const Dataset& data, CandidateList candidates, Mask mask, bool strict,
                     const CuboidKernels& kernels);
  // One pass of filter_ over the candidates into survivors_[buffer].
  CandidateList filter_pass(const Dataset& data, CandidateList candidates, int threads,
                            const CuboidKernels& kernels, int buffer);

  void run_tiles(CuboidState& part, const CuboidKernels& kernels);
  void start_block(CuboidState& part);
  void finish_block(CuboidState& part);

  SortedCandidates sorted_;
  std::vector<CuboidState> parts_;  // one per thread
  std::vector<Verdict> verdicts_;   // per candidate position
  Prefilter filter_;
  std::vector<PointId> survivors_[2], sample_, sample_skyline_, sample_rest_;
  std::vector<float> removal_values_;            // the sample's and the filter candidates' values, by column
  std::unique_ptr<CuboidEngine> sample_engine_;  // the sample's skyline
};

// Engines kept between calls. Every skyline or skycube call starts its own scheduler, workers and
// hooks, so an engine that died with its hook would fault its scratch (about 28 bytes a candidate)
// in afresh on the next call, however the allocator treats freed blocks. take_engine() hands out a
// kept engine (or a new one); keep_engine() keeps one while at most CuboidPolicy::kept_engines
// engines holding at most CuboidPolicy::kept_bytes of buffers are kept, and frees it otherwise.
// Thread-safe.
std::unique_ptr<CuboidEngine> take_engine();
void keep_engine(std::unique_ptr<CuboidEngine> engine) noexcept;
// The engines kept now and the bytes their buffers hold (for tests).
std::pair<std::size_t, std::size_t> kept_engines() noexcept;

// An engine taken from the kept ones on first use and kept again when the holder dies; copies as
// empty: lets the hook types stay aggregates (ParallelCuboidCpu{.threads = 8}).
class EngineCache {
 public:
  EngineCache() = default;
  EngineCache(const EngineCache&) {}
  EngineCache& operator=(const EngineCache&) { return *this; }
  EngineCache(EngineCache&&) noexcept = default;
  EngineCache& operator=(EngineCache&& other) noexcept {
    if (this != &other) {
      if (engine_) keep_engine(std::move(engine_));
      engine_ = std::move(other.engine_);
    }
    return *this;
  }
  ~EngineCache() {
    if (engine_) keep_engine(std::move(engine_));
  }

  CuboidEngine& get() {
    if (!engine_) engine_ = take_engine();
    return *engine_;
  }

 private:
  std::unique_ptr<CuboidEngine> engine_;
};

}  // namespace sextant::cpu::detail
