// The hot loop of MdmcCpu, a template over the instruction set (cpu/simd/isa.hpp); included
// only by mdmc_cpu_avx2.cpp and mdmc_cpu_scalar.cpp. Everything with code is a member of
// MdmcKernel<Isa>, so the two instantiations never share (ODR-merge) a function compiled for
// the other instruction set.
//
// Per point p (leaf position i), with the bitmaps of detail::MdmcScratch:
//
// FILTER (labels only). Level by level, every node n of the tree yields the columns on which
// each of its points is provably strictly better than p (better_columns, quad_tree.hpp); p is
// then strictly dominated (by any point of n, which is never p itself when the mask is not
// empty) in every non-empty submask of that set. Masks are only collected as single bits of
// `strict` and closed downwards once per level (a zeta transform: O(d 2^d / 64) word
// operations, cheaper than enumerating submasks per node as soon as a few nodes give
// overlapping masks). Subtrees whose points are worse than p on every column of every open
// subspace are skipped.
//
// REFINE. Walks the tree again; a node whose points are provably worse than p on some column of
// every still-open subspace (test on `reachable`) is skipped whole; every other leaf q gets a
// SIMD dominance test giving le (q <= p) and eq (q == p), lt = le & ~eq. Then q dominates p in
// m iff m is a submask of le that is not a submask of eq (m & lt != 0), strictly iff m is a
// submask of lt. So q is skipped when
//   * lt == 0: q is nowhere better (duplicates of p, p itself);
//   * bit le of `strict` is set: some point strictly dominates p in le and so, strict dominance
//     being inherited by subspaces, in every submask of le; everything q could add (its
//     dominated set and its strict set are submasks of le) is already set in both bitmaps;
//   * no open subspace is a submask of le (`reachable`): q could only set settled bits;
//   * the memo says so (below).
// Otherwise all submasks of lt are set in `strict` and all submasks of le minus those of eq in
// `dominated`, a word at a time: the submasks of x form, per 64-bit word w (the high bits of
// m), either nothing (w not a submask of x >> 6) or the fixed pattern low_submasks[x & 63];
// that is 2^popcount(x >> 6) word operations per mask, no per-subspace loop.
//
// THE MEMO. Keyed by le, holding the union U of the lt masks already applied with that le; q
// is skipped iff its lt is a submask of U. That is exact: q's dominated set
// D(le, lt) = {m <= le : m & lt != 0} is monotone in lt and D(le, a) | D(le, b) = D(le, a | b),
// so everything q would set is already set. Keying by le ALONE (as in the paper authors'
// public code) is wrong with ties: q1 equal to p on all of le (lt = 0, dominates nowhere) or
// better on other columns of le than q2 would hide q2, and p would be reported in skylines
// where q2 dominates it. The pair (le, lt), i.e. (le, eq), decides what q adds, never le.
//
// The `reachable` bitmap (up-closure of the open subspaces) only loses bits as p gets
// dominated; a stale copy is a superset, so pruning with it stays correct. It is recomputed
// after a few changes have accumulated and before each node of the top level.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <atomic>

#include "core/subspace.hpp"
#include "cpu/simd/dominance.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"
#include "templates/skycube/quad_tree.hpp"

namespace sextant::skycube::detail {
inline std::atomic<unsigned long long> g_visit[8];

// Tuning knobs of the CPU specialisation.
struct MdmcCpuPolicy {
  // Tree levels the filter uses (1 = medians only .. 3 = full paths).
  static constexpr int filter_levels = 2;
  // Dominance tests after a change before `reachable` is recomputed: at least this many, and at
  // least (bitmap words * d) / rebuild_cost_divisor, so that the O(d 2^d / 64) recomputation
  // stays a small fraction of the dominance tests' cost.
  static constexpr std::uint64_t min_tests_between_rebuilds = 16;
  static constexpr std::uint64_t rebuild_cost_divisor = 8;
};

// low_submasks[x]: bit i set iff i is a submask of x (i, x in 0..63).
inline constexpr std::array<std::uint64_t, 64> low_submasks = [] {
  std::array<std::uint64_t, 64> t{};
  for (std::uint64_t x = 0; x < 64; ++x)
    for (std::uint64_t i = 0; i < 64; ++i)
      if ((i & ~x) == 0) t[x] |= std::uint64_t{1} << i;
  return t;
}();

// column_bits[j]: bit i set iff bit j of i is set (j < 6).
inline constexpr std::array<std::uint64_t, 6> column_bits = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull,
                                                             0xF0F0F0F0F0F0F0F0ull, 0xFF00FF00FF00FF00ull,
                                                             0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};

template <class Isa>
class MdmcKernel {
 public:
  static void process(const MdmcTasks<MdmcShared>& tasks, MdmcScratch& scratch, HashCubePart& out) {
    MdmcKernel kernel(tasks.shared, scratch);
    for (std::size_t i = tasks.begin; i < tasks.end; ++i) kernel.point(i, out);
  }

 private:
  using Bits = std::uint64_t;

  MdmcKernel(const MdmcShared& shared, MdmcScratch& scratch)
      : tree_(shared.tree),
        s_(scratch),
        d_(shared.tree.dims()),
        full_(full_mask(shared.tree.dims())),
        words_(scratch.dominated.size()),
        rebuild_after_(std::max<std::uint64_t>(MdmcCpuPolicy::min_tests_between_rebuilds,
                                               words_ * static_cast<std::uint64_t>(d_) /
                                                   MdmcCpuPolicy::rebuild_cost_divisor)) {}

  static bool test(const std::vector<Bits>& bits, Mask m) noexcept { return (bits[m >> 6] >> (m & 63)) & 1; }
  static void set(std::vector<Bits>& bits, Mask m) noexcept { bits[m >> 6] |= Bits{1} << (m & 63); }

  // Closes `strict` downwards: every submask of a set mask gets set.
  void close_strict() noexcept {
    Bits* b = s_.strict.data();
    for (int j = 0; j < std::min(d_, 6); ++j) {
      const Bits high = column_bits[j];
      const int shift = 1 << j;
      for (std::size_t w = 0; w < words_; ++w) b[w] |= (b[w] & high) >> shift;
    }
    for (int j = 6; j < d_; ++j) {
      const std::size_t h = std::size_t{1} << (j - 6);
      for (std::size_t base = 0; base < words_; base += 2 * h)
        for (std::size_t k = base; k < base + h; ++k) b[k] |= b[k + h];
    }
  }

  // reachable = up-closure of the open subspaces (not dominated, level <= max_level).
  void rebuild_reachable() noexcept {
    ++s_.stats.rebuilds;
    Bits* c = s_.reachable.data();
    const Bits* b = s_.dominated.data();
    const Bits valid = d_ >= 6 ? ~Bits{0} : (Bits{1} << (1 << d_)) - 1;
    for (std::size_t w = 0; w < words_; ++w) c[w] = ~b[w] & valid;
    for (int j = 0; j < std::min(d_, 6); ++j) {
      const Bits low = ~column_bits[j];
      const int shift = 1 << j;
      for (std::size_t w = 0; w < words_; ++w) c[w] |= (c[w] & low) << shift;
    }
    for (int j = 6; j < d_; ++j) {
      const std::size_t h = std::size_t{1} << (j - 6);
      for (std::size_t base = 0; base < words_; base += 2 * h)
        for (std::size_t k = base; k < base + h; ++k) c[k + h] |= c[k];
    }
    changes_ = 0;
    tests_since_rebuild_ = 0;
  }

  // True when some open subspace may still be a submask of m.
  bool reachable(Mask m) const noexcept { return test(s_.reachable, m); }
  bool anything_open() const noexcept { return reachable(full_); }

  // True when it recomputed `reachable`.
  bool maybe_rebuild() noexcept {
    if (changes_ == 0 || tests_since_rebuild_ < rebuild_after_) return false;
    rebuild_reachable();
    return true;
  }

  // Merges the closed `strict` into `dominated` (strict dominance implies dominance).
  void strict_into_dominated() noexcept {
    for (std::size_t w = 0; w < words_; ++w) s_.dominated[w] |= s_.strict[w];
  }

  // Records a DT result that is not known to be redundant.
  void apply(Mask le, Mask eq, Mask lt) noexcept {
    ++s_.stats.applied;
    if (!test(s_.strict, lt)) {  // down-closed: lt set means all its submasks are
      const Bits pattern = low_submasks[lt & 63];
      const Mask high = lt >> 6;
      for (Mask w = high;; w = (w - 1) & high) {
        s_.strict[w] |= pattern;
        if (w == 0) break;
      }
    }
    const Bits le_pattern = low_submasks[le & 63];
    const Bits eq_pattern = low_submasks[eq & 63];
    const Mask le_high = le >> 6;
    const Mask eq_high = eq >> 6;
    Bits added = 0;
    for (Mask w = le_high;; w = (w - 1) & le_high) {
      const Bits pattern = (w & ~eq_high) == 0 ? le_pattern & ~eq_pattern : le_pattern;
      added |= pattern & ~s_.dominated[w];
      s_.dominated[w] |= pattern;
      if (w == 0) break;
    }
    if (added != 0) ++changes_;
  }

  void filter(const PathLabel& p) noexcept {
    const QuadTreeNodes& top = tree_.nodes(0);
    const QuadTreeNodes& mid = tree_.nodes(1);
    const QuadTreeNodes& low = tree_.nodes(2);
    // Level 0: medians only.
    for (std::size_t k = 0; k < top.size(); ++k) set(s_.strict, ~top.masks[k] & p.median);
    close_strict();
    strict_into_dominated();
    rebuild_reachable();
    if (MdmcCpuPolicy::filter_levels < 2 || !anything_open()) return;
    // Level 1: quartiles within equal median halves.
    for (std::size_t k = 0; k < top.size(); ++k) {
      const Mask m = top.masks[k];
      if (!reachable(full_ & ~(m & ~p.median))) continue;
      const Mask better = ~m & p.median;
      const Mask same = ~(m ^ p.median) & full_;
      for (std::uint32_t c = top.first_child[k]; c < top.first_child[k + 1]; ++c)
        set(s_.strict, better | (same & ~mid.masks[c] & p.quartile));
    }
    close_strict();
    strict_into_dominated();
    rebuild_reachable();
    if (MdmcCpuPolicy::filter_levels < 3 || !anything_open()) return;
    // Level 2: octiles within equal quarters.
    for (std::size_t k = 0; k < top.size(); ++k) {
      const Mask m = top.masks[k];
      const Mask worse0 = m & ~p.median;
      if (!reachable(full_ & ~worse0)) continue;
      const Mask better0 = ~m & p.median;
      const Mask same0 = ~(m ^ p.median) & full_;
      for (std::uint32_t c = top.first_child[k]; c < top.first_child[k + 1]; ++c) {
        const Mask q = mid.masks[c];
        if (!reachable(full_ & ~(worse0 | (same0 & q & ~p.quartile)))) continue;
        const Mask better1 = better0 | (same0 & ~q & p.quartile);
        const Mask same1 = same0 & ~(q ^ p.quartile);
        for (std::uint32_t g = mid.first_child[c]; g < mid.first_child[c + 1]; ++g)
          set(s_.strict, better1 | (same1 & ~low.masks[g] & p.octile));
      }
    }
    close_strict();
    strict_into_dominated();
    rebuild_reachable();
  }

  void refine(const PathLabel& p, const float* p_row) noexcept {
    const QuadTreeNodes& top = tree_.nodes(0);
    const QuadTreeNodes& mid = tree_.nodes(1);
    const QuadTreeNodes& low = tree_.nodes(2);
    for (std::size_t k = 0; k < top.size(); ++k) {
      if (maybe_rebuild() && !anything_open()) return;
      const Mask m = top.masks[k];
      const Mask worse0 = m & ~p.median;
      ++v_[0];
      if (!reachable(full_ & ~worse0)) continue;
      ++v_[1];
      const Mask same0 = ~(m ^ p.median) & full_;
      for (std::uint32_t c = top.first_child[k]; c < top.first_child[k + 1]; ++c) {
        ++v_[2];
        if (maybe_rebuild() && !anything_open()) return;
        const Mask q = mid.masks[c];
        const Mask worse1 = worse0 | (same0 & q & ~p.quartile);
        if (!reachable(full_ & ~worse1)) continue;
        ++v_[3];
        const Mask same1 = same0 & ~(q ^ p.quartile);
        for (std::uint32_t g = mid.first_child[c]; g < mid.first_child[c + 1]; ++g) {
          const Mask worse2 = worse1 | (same1 & low.masks[g] & ~p.octile);
          ++v_[4];
          if (!reachable(full_ & ~worse2)) continue;
          ++v_[5];
          for (std::uint32_t leaf = low.first_child[g]; leaf < low.first_child[g + 1]; ++leaf) {
            const cpu::DominanceMasks dm = cpu::Dominance<Isa>::compare(tree_.row(leaf), p_row, d_);
            const Mask lt = dm.lt();
            if (lt == 0 || test(s_.strict, dm.le) || !reachable(dm.le)) continue;
            Mask& seen = s_.memo[dm.le];
            if ((lt & ~seen) == 0) continue;
            if (seen == 0) s_.touched[touched_++] = dm.le;
            seen |= lt;
            apply(dm.le, dm.eq, lt);
          }
          const std::uint32_t size = low.first_child[g + 1] - low.first_child[g];
          tests_since_rebuild_ += size;
          s_.stats.dominance_tests += size;
        }
      }
    }
  }

  // Word k of the HashCube bitmap holds subspaces 32k + 1 .. 32k + 32: bits 32k + 1 .. of ours.
  void emit(PointId id, HashCubePart& out) {
    const Bits* b = s_.dominated.data();
    for (std::size_t k = 0; k < s_.words.size(); ++k) {
      const std::size_t w = k / 2;
      const Bits next = w + 1 < words_ ? b[w + 1] : 0;
      const Bits v = (k % 2 == 0) ? (b[w] >> 1) | (next << 63) : (b[w] >> 33) | (next << 31);
      s_.words[k] = static_cast<Word>(v);
    }
    out.insert(id, s_.words);
  }

  void point(std::size_t i, HashCubePart& out) {
    ++s_.stats.points;
    std::copy(s_.initial.begin(), s_.initial.end(), s_.dominated.begin());
    std::fill(s_.strict.begin(), s_.strict.end(), Bits{0});
    s_.strict[0] = 1;  // the empty subspace
    changes_ = 0;
    tests_since_rebuild_ = 0;

    const PathLabel p = tree_.label(i);
    filter(p);
    if (anything_open()) refine(p, tree_.row(i));
    rebuild_reachable();
    for (std::size_t q = 0; q < tree_.size(); ++q) if (reachable(full_ & ~worse_columns(tree_.label(q), p))) ++v_[6];
    for (std::size_t t = 0; t < touched_; ++t) s_.memo[s_.touched[t]] = 0;
    touched_ = 0;
    emit(tree_.ids()[i], out);
  }

  const QuadTree& tree_;
  MdmcScratch& s_;
  int d_;
  Mask full_;
  std::size_t words_;
  std::uint64_t rebuild_after_;
  std::uint64_t changes_ = 0;
  std::uint64_t tests_since_rebuild_ = 0;
  std::size_t touched_ = 0;  // entries of s_.touched in use
  unsigned long long v_[8] = {};
 public:
  ~MdmcKernel() { for (int i = 0; i < 8; ++i) g_visit[i] += v_[i]; }
};

}  // namespace sextant::skycube::detail
