// The state of one cuboid computation (a Hybrid-style skyline of a candidate set in one
// subspace δ), shared by the driver (cuboid_engine.cpp, ISA-independent, OpenMP) and the hot
// kernels (cuboid_kernels_impl.hpp, compiled once per ISA):
//
//  * SortedCandidates: the candidates in (score, id) order, score = float sum over δ's columns.
//    Float addition rounds monotonically, so a point can only be (strictly) dominated by points
//    of lower or equal score; equal scores form runs that are never split between blocks.
//  * ConfirmedSet: the witnesses found so far (the skyline S_δ in classify mode, S+_δ in
//    extended mode), grouped by their below-median mask on up to max_group_bits columns of δ.
//    A query enumerates only the groups whose mask covers the query's below-median columns
//    (Equation 1 of paper 004, Appendix B.2, applied to whole groups), then runs per-point mask
//    tests on the median and quartile masks, and only then a SIMD dominance test (DT).
//  * BlockState: the current block (tile) of sorted points, tested in parallel first against
//    the ConfirmedSet (phase 1), then against the surviving earlier points of the block (phase 2).
//
// Why only witnesses: if any candidate dominates p in δ, some skyline point of δ does (dominance
// is transitive and acyclic); if any candidate strictly dominates p, some skyline point does
// too (r ≺ q and q strictly below p on every column ⇒ r strictly below p). So S_δ alone decides
// both S_δ and S+_δ, and S+_δ alone decides S+_δ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "cpu/skycube/aligned_vector.hpp"

namespace sextant::cpu::detail {

enum class Verdict : std::uint8_t {
  skyline,   // not dominated (classify mode) / not strictly dominated (extended mode)
  extended,  // dominated, but not strictly (classify mode only): in S+_δ \ S_δ
  excluded,  // strictly dominated: in no skyline of δ or any of its subspaces
};

// Tuning knobs of the CPU cuboid algorithm.
struct CuboidPolicy {
  static constexpr std::size_t sequential_block = 256;      // points per tile, one thread
  static constexpr std::size_t parallel_block = 2048;       // points per tile, a team
  static constexpr std::size_t parallel_min_points = 4096;  // fewer candidates: one thread
  static constexpr std::size_t parallel_chunk = 32;         // points per OpenMP work item
  static constexpr int max_group_bits = 12;                 // at most 4096 groups
  static constexpr std::size_t points_per_group = 16;       // grouping granularity
  static constexpr std::size_t pivot_sample = 2048;         // candidates sampled for pivots
  static constexpr std::size_t min_tail = 64;               // ungrouped witnesses before regrouping
  static constexpr std::size_t simd_pad = 8;                // slack for 8-lane loads past the end
};

// Candidate ids: an ascending list, or (list empty, count given) all points 0 .. count-1.
struct CandidateList {
  std::span<const PointId> ids;
  std::size_t all = 0;
  bool is_all = false;

  std::size_t size() const noexcept { return is_all ? all : ids.size(); }
  PointId operator[](std::size_t i) const noexcept { return is_all ? static_cast<PointId>(i) : ids[i]; }
};

// Software pext (BMI2's _pext_u32): the bits of x selected by m, packed to the low end.
constexpr std::uint32_t extract_bits(std::uint32_t x, std::uint32_t m) noexcept {
  std::uint32_t out = 0;
  for (std::uint32_t bit = 1; m != 0; m &= m - 1, bit <<= 1)
    if ((x & m & (~m + 1)) != 0) out |= bit;
  return out;
}

struct SortedCandidates {
  const Dataset* data = nullptr;
  Mask mask = 0;
  int d = 0;
  int stride = 0;
  bool classify = true;
  std::vector<PointId> ids;              // sorted order
  std::vector<std::uint32_t> positions;  // index in the candidate list, sorted order
  std::vector<std::uint32_t> run_end;    // one past the last point with the same score
  AlignedVector<float> median;           // pivots per column (stride entries; 0 outside δ)
  AlignedVector<float> quartile_low;     // pivot below the median
  AlignedVector<float> quartile_high;    // pivot at or above the median

  std::size_t size() const noexcept { return ids.size(); }

  // Scores, sorts and picks the pivots; `threads` > 1 parallelises the scoring.
  void prepare(const Dataset& data, CandidateList candidates, Mask mask, bool classify, int threads);

 private:
  std::vector<std::uint32_t> keys_, key_scratch_, pos_scratch_;  // radix sort buffers
  std::vector<float> sample_;
  std::vector<std::uint64_t> packed_;
};

// Kernel view of the confirmed set: groups [start[g], start[g] + count[g]) and the tail
// [tail_start, tail_start + tail_count) index the SoA arrays.
struct ConfirmedView {
  const std::uint32_t* below_median;
  const std::uint32_t* below_quartile;
  const float* rows;
  const std::uint32_t* start;
  const std::uint32_t* count;
  std::uint32_t group_mask;  // δ columns used for the group key
  std::uint32_t groups;      // 2^group bits
  std::size_t tail_start;
  std::size_t tail_count;
};

class ConfirmedSet {
 public:
  void reset(int d, int stride, Mask mask);
  void add(const float* row, std::uint32_t below_median, std::uint32_t below_quartile);
  std::size_t size() const noexcept { return size_; }
  ConfirmedView view() const noexcept;

 private:
  struct Storage {
    std::vector<std::uint32_t> below_median, below_quartile;
    AlignedVector<float> rows;
    void resize(std::size_t points, int stride);
  };
  void place(Storage& to, std::size_t at, const Storage& from, std::size_t index) const;
  void regroup();

  int d_ = 0;
  int stride_ = 0;
  Mask mask_ = 0;
  std::size_t size_ = 0;
  std::uint32_t group_mask_ = 0;
  std::vector<std::uint32_t> start_{0}, count_{0}, capacity_{0}, old_start_, old_count_;
  std::size_t tail_start_ = 0, tail_count_ = 0, tail_capacity_ = 0;
  Storage live_, spare_;
};

struct BlockState {
  std::size_t begin = 0;  // sorted positions [begin, end)
  std::size_t end = 0;
  AlignedVector<float> rows;  // padded rows, block-relative
  std::vector<std::uint32_t> below_median, below_quartile;
  std::vector<Verdict> first, final_verdict;  // after phase 1, after phase 2
  // Witnesses of phase 2 (block points that survived phase 1 as witnesses), block order.
  std::vector<std::uint32_t> witness_median, witness_quartile, witness_row;
  std::vector<std::uint32_t> witness_prefix;  // witnesses before block point r (size + 1)

  std::size_t size() const noexcept { return end - begin; }
  void resize(std::size_t points, int stride);
  // Collects the witnesses after phase 1.
  void collect_witnesses();
};

struct CuboidState {
  SortedCandidates sorted;
  ConfirmedSet confirmed;
  BlockState block;
};

// The hot loops, one instantiation per ISA (cuboid_kernels_avx2.cpp, cuboid_kernels_scalar.cpp).
// Both take absolute sorted positions inside the current block.
struct CuboidKernels {
  void (*phase1)(CuboidState& state, std::size_t begin, std::size_t end);
  void (*phase2)(CuboidState& state, std::size_t begin, std::size_t end);
};

template <class Isa>
CuboidKernels cuboid_kernels() noexcept;

}  // namespace sextant::cpu::detail
