// The state of one cuboid computation (a Hybrid-style skyline of a candidate set in one
// subspace δ), shared by the driver (cuboid_engine.cpp, ISA-independent, OpenMP) and the hot
// kernels (cuboid_kernels_impl.hpp, compiled once per ISA):
//
//  * SortedCandidates: the candidates in (score, id) order, score = float sum over δ's columns.
//    Float addition rounds monotonically, so a point can only be (strictly) dominated by points
//    of lower or equal score; equal scores form runs that are never split between tiles.
//  * Quantiser: per-column codes for a cheap, selective filter before any dominance test (DT).
//  * ConfirmedSet: the witnesses found so far (the skyline S_δ in classify mode, S+_δ in
//    extended mode), grouped by their below-median mask on up to max_group_bits columns of δ,
//    in score order inside every group. A query enumerates only the groups whose mask covers the
//    query's below-median columns (Equation 1 of paper 004, Appendix B.2, applied to a whole
//    group), then filters the group's points 4 or 8 at a time on their codes, and only then
//    runs a SIMD DT.
//  * BlockState: the current tile of sorted points, tested first against the ConfirmedSet
//    (phase 1), then against the tile's earlier witnesses (phase 2); its witnesses then join the
//    ConfirmedSet (phase 3).
//
// Why only witnesses: if any candidate dominates p in δ, some skyline point of δ does (dominance
// is transitive and acyclic); if any candidate strictly dominates p, some skyline point does
// too (r ≺ q and q strictly below p on every column ⇒ r strictly below p). So S_δ alone decides
// both S_δ and S+_δ, and S+_δ alone decides S+_δ.
//
// A team splits the sorted candidates into interleaved partitions (position mod threads): every
// thread runs the tiles of its own partition, then checks its survivors against the other
// partitions' witnesses of lower or equal score (Partition, cross phase). Any candidate that
// dominates p proves p dominated, and every skyline point of δ is a witness of its partition,
// so the verdicts are exact; the work is about that of one thread, with two barriers.
#pragma once

#include <array>
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
  // Tiles grow while few points survive phase 1, so that a tile holds about this many witnesses
  // (bounding phase 2); a tile has at most 64 times as many points.
  static constexpr std::size_t tile_witnesses = 64;
  static constexpr std::size_t parallel_min_points = 4096;  // fewer candidates: one thread
  static constexpr std::size_t cross_chunk = 256;           // sorted positions per cross-phase work item
  static constexpr int max_group_bits = 12;                 // at most 4096 groups
  static constexpr std::size_t points_per_group = 64;       // grouping granularity
  static constexpr std::size_t min_quantiser_sample = 32;   // candidates sampled for the quantiser:
  static constexpr std::size_t max_quantiser_sample = 256;  //   m / 16, within these bounds
  static constexpr std::size_t min_tail = 64;               // ungrouped witnesses before regrouping
  static constexpr std::size_t simd_pad = 8;                // slack (points) for vector loads past the end
  // The prefilter (Prefilter below): from this many candidates on; the sample whose skyline
  // points are the candidate filter points (at most prefilter_candidates of them); a round runs
  // only when its filters remove at least this share of the sample; at most this many rounds.
  static constexpr std::size_t prefilter_min_points = 16384;
  static constexpr std::size_t prefilter_sample = 1024;
  static constexpr std::size_t prefilter_candidates = 256;
  static constexpr double prefilter_min_pruned = 0.25;
  static constexpr int prefilter_rounds = 3;
  // Engines kept between calls (cuboid_engine.hpp), and the most bytes of buffers they may hold:
  // an anti-correlated million points leave about 30 MB in one engine.
  static constexpr std::size_t kept_engines = 16;
  static constexpr std::size_t kept_bytes = std::size_t{256} << 20;
};

// Candidate ids: an ascending list, or (list empty, count given) all points 0 .. count-1.
struct CandidateList {
  std::span<const PointId> ids;
  std::size_t all = 0;
  bool is_all = false;

  std::size_t size() const noexcept { return is_all ? all : ids.size(); }
  PointId operator[](std::size_t i) const noexcept { return is_all ? static_cast<PointId>(i) : ids[i]; }
};

// A few strong points tested against every candidate before the sort: a candidate that one of
// them dominates (strict: strictly dominates) cannot be in the skyline (strict: in S+), and the
// points that decide every other verdict (the skyline's) are never removed, so the tiles over the
// survivors give the same verdicts. The filter points are skyline points of an even sample of
// the candidates, chosen greedily for the sample points they remove; a second round fits new ones
// to the survivors. Each lane of a column holds one filter point's value (NaN in unused lanes:
// never <=, never <).
struct Prefilter {
  static constexpr int lanes = 16;
  int count = 0;  // filter points in use, 1 .. lanes
  bool strict = false;
  std::vector<int> columns;     // δ's columns
  AlignedVector<float> values;  // [column index in δ][lanes]
};

// Software pext (BMI2's _pext_u32): the bits of x selected by m, packed to the low end.
constexpr std::uint32_t extract_bits(std::uint32_t x, std::uint32_t m) noexcept {
  std::uint32_t out = 0;
  for (std::uint32_t bit = 1; m != 0; m &= m - 1, bit <<= 1)
    if ((x & m & (~m + 1)) != 0) out |= bit;
  return out;
}

// Quantised coordinates for the per-point filter: every column becomes a 7-bit code through a
// monotone, piecewise-linear map whose pieces are the sampled quartiles of the candidates (32
// codes per quarter). q <= p on a column implies code(q) <= code(p), so "code(q) <= code(p) on
// every column of δ" is a necessary condition for q to dominate p (Equation 1 of Appendix B.2
// with many pivots per column instead of one); code < 64 <=> below the sampled median, which
// gives the group key.
//
// Codes are packed into 64-bit words as fields with a guard bit on top, so one subtraction
// compares all fields at once (SWAR): ((p | high) - q) keeps a field's guard bit iff p >= q in
// that field, and no borrow crosses fields. 8 < d <= 12: 5-bit fields holding the top 4 code
// bits, one word per point; otherwise bytes holding all 7 bits, 1, 2 or 4 words per point.
struct Quantiser {
  static constexpr int pieces = 4;
  static constexpr int codes_per_piece = 32;
  int field_bits = 8;                    // 5 or 8
  int words = 1;                         // 64-bit words per point: 1, 2 or 4
  std::uint64_t high = 0;                // the guard bit of every field of a word
  std::array<std::uint64_t, 4> guard{};  // the guard bits of δ's columns, per word
  AlignedVector<float> bound;            // [piece][stride]: lower end of each piece (0 outside δ)
  AlignedVector<float> scale;            // [piece][stride]: codes per unit inside the piece
};

struct SortedCandidates {
  const Dataset* data = nullptr;
  Mask mask = 0;
  int d = 0;
  int stride = 0;
  bool classify = true;
  std::vector<PointId> ids;              // sorted order
  std::vector<std::uint32_t> positions;  // index in the candidate list, sorted order
  std::vector<std::uint32_t> run_end;    // one past the last point with the same score
  Quantiser quantiser;

  std::size_t size() const noexcept { return ids.size(); }

  // Scores, sorts and fits the quantiser; `threads` > 1 parallelises the scoring.
  void prepare(const Dataset& data, CandidateList candidates, Mask mask, bool classify, int threads);
  std::size_t capacity_bytes() const noexcept;

 private:
  void fit_quantiser(const Dataset& data, CandidateList candidates);
  std::vector<std::uint32_t> keys_, key_scratch_, pos_scratch_;  // radix sort buffers
  std::vector<std::uint64_t> packed_;
  std::vector<float> sample_;
};

// The sorted positions first, first + step, first + 2 step, ... (local index i <-> position
// first + i * step); one thread's share of a team's cuboid, or everything (first 0, step 1).
struct Partition {
  std::size_t first = 0;
  std::size_t step = 1;
  std::size_t size = 0;

  std::size_t position(std::size_t i) const noexcept { return first + i * step; }
  // Local indices whose position is below `position`.
  std::size_t count_below(std::size_t position) const noexcept {
    return position <= first ? 0 : (position - first + step - 1) / step;
  }
};

// Kernel view of the confirmed set: groups [start[g], start[g] + count[g]) and the tail
// [tail_start, tail_start + tail_count) index the SoA arrays; each range is in score order.
struct ConfirmedView {
  const std::uint64_t* codes;
  const float* rows;
  const std::uint32_t* positions;  // sorted position of each point
  const std::uint32_t* start;
  const std::uint32_t* count;
  std::uint32_t group_mask;  // δ columns used for the group key
  std::uint32_t groups;      // 2^group bits
  std::size_t tail_start;
  std::size_t tail_count;
};

class ConfirmedSet {
 public:
  void reset(int d, int stride, int code_words, Mask mask);
  // Points must come in increasing sorted position.
  void add(const float* row, const std::uint64_t* codes, std::uint32_t below_median, std::uint32_t position);
  std::size_t size() const noexcept { return size_; }
  ConfirmedView view() const noexcept;
  std::size_t capacity_bytes() const noexcept;

 private:
  struct Storage {
    std::vector<std::uint32_t> below_median, positions;
    AlignedVector<std::uint64_t> codes;
    AlignedVector<float> rows;
    void resize(std::size_t points, int stride, int code_words);
  };
  void place(Storage& to, std::size_t at, const Storage& from, std::size_t index) const;
  void regroup();

  int d_ = 0;
  int stride_ = 0;
  int code_words_ = 1;
  Mask mask_ = 0;
  std::size_t size_ = 0;
  std::uint32_t group_mask_ = 0;
  std::vector<std::uint32_t> start_{0}, count_{0}, capacity_{0};
  std::vector<std::uint32_t> order_;  // storage index of every point, in insertion order
  std::size_t tail_start_ = 0, tail_count_ = 0, tail_capacity_ = 0;
  Storage live_, spare_;
};

struct BlockState {
  std::size_t begin = 0;  // local indices [begin, end) of the partition
  std::size_t end = 0;
  int code_words = 1;
  AlignedVector<float> rows;  // padded rows, block-relative
  AlignedVector<std::uint64_t> codes;
  std::vector<std::uint32_t> below_median;
  std::vector<Verdict> first, final_verdict;  // after phase 1, after phase 2

  std::size_t size() const noexcept { return end - begin; }
  void resize(std::size_t points, int stride, int code_words);
  std::size_t capacity_bytes() const noexcept;
};

// The tile's points that survived phase 1 as witnesses, compacted in tile order, for phase 2.
struct WitnessList {
  AlignedVector<std::uint64_t> codes;
  std::vector<std::uint32_t> rows;    // block-relative point index
  std::vector<std::uint32_t> prefix;  // witnesses before block point r (size() + 1 entries)

  void build(const BlockState& block);
  std::size_t capacity_bytes() const noexcept;
};

// One partition's computation.
struct CuboidState {
  const SortedCandidates* sorted = nullptr;
  Partition partition;
  ConfirmedSet confirmed;
  BlockState block;
  WitnessList witnesses;
  double survival = 1.0;  // witnesses per point in the last tile

  std::size_t capacity_bytes() const noexcept {
    return confirmed.capacity_bytes() + block.capacity_bytes() + witnesses.capacity_bytes();
  }
};

// The hot loops, one instantiation per ISA (cuboid_kernels_{scalar,avx2,avx512}.cpp).
// phase1 / phase2 take local indices inside the current tile. cross checks the points at sorted
// positions [begin, end) that are not excluded against the confirmed sets of the partitions
// they are not in, updating `verdicts` (indexed by candidate position); parts[scratch] lends its
// tile buffers as scratch.
struct CuboidKernels {
  // Writes to `out` the candidates at positions [begin, end) that no filter point removes, in
  // order; returns how many.
  std::size_t (*prefilter)(const Dataset& data, CandidateList candidates, std::size_t begin, std::size_t end,
                           const Prefilter& filter, PointId* out);
  // Which sample points each filter candidate removes (Prefilter's rule, strict or not): bit i of
  // removed[k * padded / 64 + i / 64] for candidate k and sample point i. Column-major values:
  // sample[c * padded + i] (padded: a multiple of 64, NaN past the sample, which nothing removes)
  // and candidates[c * pool + k].
  void (*prefilter_removals)(const float* sample, std::size_t padded, const float* candidates,
                             std::size_t pool, std::size_t columns, bool strict,
                             std::uint64_t* removed) noexcept;
  void (*phase1)(CuboidState& state, std::size_t begin, std::size_t end);
  void (*phase2)(CuboidState& state, std::size_t begin, std::size_t end);
  void (*cross)(std::span<CuboidState> parts, std::size_t scratch, std::size_t begin, std::size_t end,
                Verdict* verdicts);
};

template <class Isa>
CuboidKernels cuboid_kernels() noexcept;

}  // namespace sextant::cpu::detail
