// The hot loop of the MDMC CPU hooks, a template over the instruction set (cpu/simd/isa.hpp);
// included only by mdmc_cpu_<isa>.cpp. Everything with code is a member of MdmcKernel<Isa>, so
// the instantiations never share (ODR-merge) a function compiled for another instruction set.
//
// Per point p (leaf position i), with the bitmaps of detail::MdmcScratch (bit m = subspace m):
//
// FILTER (path labels only, no coordinates). Level by level (options.filter_levels of them),
// every node n yields the columns on which all its points are provably strictly better than p
// (better_columns, quad_tree.hpp: the median level, then quartiles where the median bits are
// equal, then octiles where the quartile bits are too); p is strictly dominated (by a point of
// n, never p itself when the mask is not empty) in every non-empty submask of that set. The
// masks are only collected, as single bits of `strict`, and closed downwards once per level by
// a zeta transform: O(d 2^d / 64) word operations, whereas enumerating submasks per node costs
// 2^|mask| each and nodes give heavily overlapping masks. Subtrees whose points are worse than
// p on some column of every open subspace are skipped.
//
// REFINE. First tests the leaves that settled subspaces of the worker's previous point (leaf
// order neighbours: likely dominators again). Then walks the top level of the tree, nodes with
// few worse columns first (likely dominators: they settle subspaces early, so the rest prunes
// better). A node whose points are provably worse than p on some column of every still-open
// subspace is skipped whole, a big node is pruned per quartile child, and the leaves of the rest
// are scanned flat: full three-level labels, 8 leaves per AVX2 instruction, against the
// `reachable` bitmap. The surviving leaves' rows are prefetched and queued; a SIMD dominance
// test gives le (q <= p) and eq (q == p), lt = le & ~eq. q dominates p in m iff m is a submask
// of le and not of eq (m & lt != 0), strictly iff m is a submask of lt. q is skipped when
//   * lt == 0: q is nowhere better (duplicates of p, p itself);
//   * bit le of `strict` is set: some point strictly dominates p in le and so, strict dominance
//     being inherited by subspaces, in every submask of le; everything q could add (its
//     dominated and strict sets are both submasks of le) is already set in both bitmaps;
//   * no open subspace is a submask of le (`reachable`): q could only set settled bits;
//   * the memo says so (below).
// Otherwise all submasks of lt are set in `strict` and all submasks of le minus those of eq in
// `dominated`, a word at a time: the submasks of x form, per 64-bit word w (the high bits of
// m), either nothing (w not a submask of x >> 6) or the fixed pattern low_submasks[x & 63];
// that is 2^popcount(x >> 6) word operations per mask, no per-subspace loop.
//
// THE MEMO. Keyed by le, holding the union U of the lt masks already applied with that le; q
// is skipped iff its lt is a submask of U. That is exact for `dominated` (the output): q's set
// D(le, lt) = {m <= le : m & lt != 0} is monotone in lt and D(le, a) | D(le, b) = D(le, a | b),
// so everything q would set there is already set (`strict` may miss some of q's submasks of lt:
// it only prunes, and any subset of the true strict set prunes correctly). Keying by le ALONE (as the paper
// authors' public code does) is wrong with ties: a q1 that ties p on all of le (lt = 0, dominating nowhere),
// or one better on other columns of le than q2, would hide q2, and p would be reported in skylines where q2
// dominates it. What q adds is decided by the pair (le, lt), i.e. (le, eq), never le.
//
// TIES. Subspaces made only of columns on which p holds the column's minimum are in p's skyline
// for sure (`skyline`): no q can dominate p there. They are not open: they would otherwise stay
// open to the end and keep alive every q that ties p on one such column (with few distinct values
// per column, a fixed share of all points for every p: the refine became quadratic).
//
// `reachable` (the up-closure of the open subspaces) only loses bits as p gets dominated; a
// stale copy is a superset, so pruning with it stays correct. It is recomputed when changes
// have accumulated over enough dominance tests to pay for the O(d 2^d / 64) recomputation.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/subspace.hpp"
#include "cpu/simd/dominance.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"
#include "templates/skycube/quad_tree.hpp"
#include "templates/skycube/skycube_policy.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace sextant::skycube::detail {

using MdmcCpuPolicy = policy::MdmcCpuKernel;  // templates/skycube/skycube_policy.hpp

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
  static void process(const MdmcTasks<MdmcShared>& tasks, const MdmcCpuOptions& options, MdmcScratch& scratch,
                      HashCubePart& out) {
    MdmcKernel kernel(tasks.shared, options, scratch);
    for (std::size_t i = tasks.begin; i < tasks.end; ++i) kernel.point(i, out);
  }

 private:
  using Bits = std::uint64_t;

  MdmcKernel(const MdmcShared& shared, const MdmcCpuOptions& options, MdmcScratch& scratch)
      : tree_(shared.tree),
        s_(scratch),
        filter_levels_(options.filter_levels),
        d_(shared.tree.dims()),
        full_(full_mask(shared.tree.dims())),
        minima_(shared.tree.minima()),
        words_(scratch.dominated.size()),
        rebuild_after_(std::max<std::uint64_t>(
            MdmcCpuPolicy::min_tests_between_rebuilds,
            words_ * static_cast<std::uint64_t>(d_) / MdmcCpuPolicy::rebuild_cost_divisor)) {}

  static bool test(const std::vector<Bits>& bits, Mask m) noexcept { return (bits[m >> 6] >> (m & 63)) & 1; }
  static void set(std::vector<Bits>& bits, Mask m) noexcept { bits[m >> 6] |= Bits{1} << (m & 63); }

  // True when some open subspace may still be a submask of m.
  bool reachable(Mask m) const noexcept { return test(s_.reachable, m); }
  bool anything_open() const noexcept { return reachable(full_); }

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

  // reachable = up-closure of the open subspaces (not dominated, not surely in the skyline,
  // level <= max_level).
  void rebuild_reachable() noexcept {
    ++s_.stats.rebuilds;
    Bits* c = s_.reachable.data();
    const Bits* b = s_.dominated.data();
    const Bits* sure = s_.skyline.data();
    const Bits valid = d_ >= 6 ? ~Bits{0} : (Bits{1} << (1 << d_)) - 1;
    for (std::size_t w = 0; w < words_; ++w) c[w] = ~(b[w] | sure[w]) & valid;
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

  // True when it recomputed `reachable`.
  bool maybe_rebuild() noexcept {
    if (changes_ == 0 || tests_since_rebuild_ < rebuild_after_) return false;
    rebuild_reachable();
    return true;
  }

  // After a filter level: close the collected masks, merge them (strict dominance implies
  // dominance), refresh `reachable`.
  void settle_filter_level() noexcept {
    close_strict();
    for (std::size_t w = 0; w < words_; ++w) s_.dominated[w] |= s_.strict[w];
    rebuild_reachable();
  }

  // Sets every submask of x in `bits`: per 64-bit word w (the high bits), the fixed pattern
  // low_submasks[x & 63] where w is a submask of x >> 6.
  static void set_submasks(std::vector<Bits>& bits, Mask x) noexcept {
    const Bits pattern = low_submasks[x & 63];
    const Mask high = x >> 6;
    for (Mask w = high;; w = (w - 1) & high) {
      bits[w] |= pattern;
      if (w == 0) break;
    }
  }

  // The subspaces p is surely in the skyline of: the submasks of the columns where it holds the
  // minimum (bit 0, the empty subspace, is settled anyway).
  void mark_sure_skyline(const float* p_row) noexcept {
    if (sure_ != 0) std::fill(s_.skyline.begin(), s_.skyline.end(), Bits{0});
    sure_ = 0;
    for (int j = 0; j < d_; ++j)
      if (p_row[j] == minima_[static_cast<std::size_t>(j)]) sure_ |= Mask{1} << j;
    if (sure_ != 0) set_submasks(s_.skyline, sure_);
  }

  // Records a dominance test result that is not known to be redundant.
  void apply(Mask le, Mask eq, Mask lt) noexcept {
    ++s_.stats.applied;
    if (!test(s_.strict, lt)) set_submasks(s_.strict, lt);  // down-closed: lt set means all its submasks are
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
    // Level 0: medians.
    for (std::size_t k = 0; k < top.size(); ++k) set(s_.strict, ~top.masks[k] & p.median);
    settle_filter_level();
    if (filter_levels_ < 2 || !anything_open()) return;
    // Level 1: quartiles within equal median halves.
    for (std::size_t k = 0; k < top.size(); ++k) {
      const Mask m = top.masks[k];
      if (!reachable(full_ & ~(m & ~p.median))) continue;
      const Mask better = ~m & p.median;
      const Mask same = ~(m ^ p.median) & full_;
      for (std::uint32_t c = top.first_child[k]; c < top.first_child[k + 1]; ++c)
        set(s_.strict, better | (same & ~mid.masks[c] & p.quartile));
    }
    settle_filter_level();
    if (filter_levels_ < 3 || !anything_open()) return;
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
    settle_filter_level();
  }

  // Queues the leaf positions in [begin, end) (at most scan_block of them) whose labels leave
  // some open subspace reachable, and prefetches their rows.
  void scan(std::uint32_t begin, std::uint32_t end, const PathLabel& p) noexcept {
    const Mask* median = tree_.median_masks().data();
    const Mask* quartile = tree_.quartile_masks().data();
    const Mask* octile = tree_.octile_masks().data();
#if defined(__AVX512F__) && defined(__AVX512VL__)
    if constexpr (std::is_same_v<Isa, cpu::Avx512Isa>) {
      const __m512i pm = _mm512_set1_epi32(static_cast<int>(p.median));
      const __m512i pq = _mm512_set1_epi32(static_cast<int>(p.quartile));
      const __m512i po = _mm512_set1_epi32(static_cast<int>(p.octile));
      const __m512i full = _mm512_set1_epi32(static_cast<int>(full_));
      const __m512i low5 = _mm512_set1_epi32(31);
      const __m512i one = _mm512_set1_epi32(1);
      const auto* bits = reinterpret_cast<const int*>(s_.reachable.data());
      // 16 leaves at a time, as the AVX2 loop below does 8; lanes past `end` are masked off.
      for (std::uint32_t pos = begin; pos < end; pos += 16) {
        const auto lanes = static_cast<__mmask16>(end - pos >= 16 ? 0xFFFFu : (1u << (end - pos)) - 1);
        const __m512i m = _mm512_loadu_si512(median + pos);
        const __m512i q = _mm512_loadu_si512(quartile + pos);
        const __m512i o = _mm512_loadu_si512(octile + pos);
        const __m512i same0 = _mm512_andnot_si512(_mm512_xor_si512(m, pm), full);
        const __m512i same1 = _mm512_andnot_si512(_mm512_xor_si512(q, pq), same0);
        __m512i worse = _mm512_andnot_si512(pm, m);
        worse = _mm512_or_si512(worse, _mm512_and_si512(same0, _mm512_andnot_si512(pq, q)));
        worse = _mm512_or_si512(worse, _mm512_and_si512(same1, _mm512_andnot_si512(po, o)));
        const __m512i x = _mm512_andnot_si512(worse, full);
        const __m512i word =
            _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), lanes, _mm512_srli_epi32(x, 5), bits, 4);
        const __m512i bit = _mm512_and_si512(_mm512_srlv_epi32(word, _mm512_and_si512(x, low5)), one);
        auto hits = static_cast<unsigned>(_mm512_mask_cmpeq_epi32_mask(lanes, bit, one));
        while (hits != 0) {
          const auto leaf = pos + static_cast<std::uint32_t>(std::countr_zero(hits));
          hits &= hits - 1;
          __builtin_prefetch(tree_.row(leaf));
          candidates_[candidate_count_++] = leaf;
        }
      }
      return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same_v<Isa, cpu::Avx2Isa>) {
      const __m256i pm = _mm256_set1_epi32(static_cast<int>(p.median));
      const __m256i pq = _mm256_set1_epi32(static_cast<int>(p.quartile));
      const __m256i po = _mm256_set1_epi32(static_cast<int>(p.octile));
      const __m256i full = _mm256_set1_epi32(static_cast<int>(full_));
      const __m256i low5 = _mm256_set1_epi32(31);
      const __m256i one = _mm256_set1_epi32(1);
      const auto* bits = reinterpret_cast<const int*>(s_.reachable.data());
      // Whole registers: the label arrays are padded (QuadTree::label_padding) and lanes past
      // `end` are masked off.
      for (std::uint32_t pos = begin; pos < end; pos += 8) {
        const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(median + pos));
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(quartile + pos));
        const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(octile + pos));
        // x = full & ~worse_columns(leaf, p), then bit x of `reachable`, 8 leaves at a time.
        const __m256i same0 = _mm256_andnot_si256(_mm256_xor_si256(m, pm), full);
        const __m256i same1 = _mm256_andnot_si256(_mm256_xor_si256(q, pq), same0);
        __m256i worse = _mm256_andnot_si256(pm, m);
        worse = _mm256_or_si256(worse, _mm256_and_si256(same0, _mm256_andnot_si256(pq, q)));
        worse = _mm256_or_si256(worse, _mm256_and_si256(same1, _mm256_andnot_si256(po, o)));
        const __m256i x = _mm256_andnot_si256(worse, full);
        const __m256i word = _mm256_i32gather_epi32(bits, _mm256_srli_epi32(x, 5), 4);
        const __m256i bit = _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_and_si256(x, low5)), one);
        auto hits =
            static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bit, one))));
        if (end - pos < 8) hits &= (1u << (end - pos)) - 1;
        while (hits != 0) {
          const auto leaf = pos + static_cast<std::uint32_t>(std::countr_zero(hits));
          hits &= hits - 1;
          __builtin_prefetch(tree_.row(leaf));
          candidates_[candidate_count_++] = leaf;
        }
      }
      return;
    }
#endif
    for (std::uint32_t pos = begin; pos < end; ++pos) {
      if (!reachable(full_ & ~worse_columns({median[pos], quartile[pos], octile[pos]}, p))) continue;
      __builtin_prefetch(tree_.row(pos));
      candidates_[candidate_count_++] = pos;
    }
  }

  // Dominance tests against the queued candidates.
  void test_candidates(const float* p_row) noexcept {
    s_.stats.dominance_tests += candidate_count_;
    tests_since_rebuild_ += candidate_count_;
    for (std::size_t c = 0; c < candidate_count_; ++c) {
      const cpu::DominanceMasks dm = cpu::Dominance<Isa>::compare(tree_.row(candidates_[c]), p_row, d_);
      const Mask lt = dm.lt();
      if (lt == 0 || test(s_.strict, dm.le) || !reachable(dm.le)) continue;
      Mask& applied = s_.memo[dm.le];
      if ((lt & ~applied) == 0) continue;
      if (applied == 0) s_.touched[touched_++] = dm.le;
      applied |= lt;
      apply(dm.le, dm.eq, lt);
      if (next_warm_count_ < next_warm_.size()) next_warm_[next_warm_count_++] = candidates_[c];
    }
    candidate_count_ = 0;
  }

  // The leaves that settled subspaces of the previous point are likely dominators of this one too
  // (neighbours in leaf order are close in space): testing them first settles subspaces before
  // the scan, which then prunes more. Their second test in the scan is a memo hit.
  void warm_start(const float* p_row) noexcept {
    for (std::size_t w = 0; w < warm_count_; ++w) candidates_[candidate_count_++] = warm_[w];
    test_candidates(p_row);
    if (changes_ != 0) rebuild_reachable();
  }

  // Tests what is queued; false when nothing is open any more.
  bool flush(const float* p_row) noexcept {
    test_candidates(p_row);
    return !(maybe_rebuild() && !anything_open());
  }

  // Scans the leaves [begin, end), testing the queue whenever it could overflow. False when
  // nothing is open any more.
  bool scan_range(std::uint32_t begin, std::uint32_t end, const PathLabel& p, const float* p_row) noexcept {
    constexpr std::uint32_t block = MdmcCpuPolicy::scan_block;
    for (std::uint32_t b = begin; b < end; b += block) {
      if (candidate_count_ + block > candidates_.size() && !flush(p_row)) return false;
      scan(b, std::min(end, b + block), p);
    }
    return true;
  }

  void refine(const PathLabel& p, const float* p_row) noexcept {
    const QuadTreeNodes& top = tree_.nodes(0);
    const QuadTreeNodes& mid = tree_.nodes(1);
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t k = 0; k < top.size(); ++k) {
        const Mask worse0 = top.masks[k] & ~p.median;
        if ((std::popcount(worse0) <= MdmcCpuPolicy::first_pass_worse) != (pass == 0)) continue;
        if (!reachable(full_ & ~worse0)) continue;
        const std::uint32_t leaves = top.first_leaf[k + 1] - top.first_leaf[k];
        const std::uint32_t children = top.first_child[k + 1] - top.first_child[k];
        if (leaves < MdmcCpuPolicy::descend_leaves_per_child * children) {
          if (!scan_range(top.first_leaf[k], top.first_leaf[k + 1], p, p_row)) return;
        } else {
          const Mask same0 = ~(top.masks[k] ^ p.median) & full_;
          for (std::uint32_t c = top.first_child[k]; c < top.first_child[k + 1]; ++c) {
            if (!reachable(full_ & ~(worse0 | (same0 & mid.masks[c] & ~p.quartile)))) continue;
            if (!scan_range(mid.first_leaf[c], mid.first_leaf[c + 1], p, p_row)) return;
          }
        }
        if (candidate_count_ >= MdmcCpuPolicy::flush_candidates && !flush(p_row)) return;
      }
      if (!flush(p_row)) return;
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
    candidate_count_ = 0;

    const PathLabel p = tree_.label(i);
    mark_sure_skyline(tree_.row(i));
    filter(p);
    next_warm_count_ = 0;
    if (anything_open()) warm_start(tree_.row(i));
    if (anything_open()) refine(p, tree_.row(i));
    std::copy(next_warm_.begin(), next_warm_.begin() + static_cast<std::ptrdiff_t>(next_warm_count_),
              warm_.begin());
    warm_count_ = next_warm_count_;
    for (std::size_t t = 0; t < touched_; ++t) s_.memo[s_.touched[t]] = 0;
    touched_ = 0;
    emit(tree_.ids()[i], out);
  }

  const QuadTree& tree_;
  MdmcScratch& s_;
  int filter_levels_;
  int d_;
  Mask full_;
  std::span<const float> minima_;
  std::size_t words_;
  std::uint64_t rebuild_after_;
  std::uint64_t changes_ = 0;              // dominance results that set new bits since the last rebuild
  std::uint64_t tests_since_rebuild_ = 0;  // dominance tests since the last rebuild
  std::size_t touched_ = 0;                // entries of s_.touched in use
  Mask sure_ = ~Mask{0};  // columns of the last mark_sure_skyline (not 0: s_.skyline unknown)
  std::array<std::uint32_t, 2 * MdmcCpuPolicy::scan_block> candidates_;  // leaves awaiting their test
  std::size_t candidate_count_ = 0;
  std::array<std::uint32_t, MdmcCpuPolicy::warm_start_leaves> warm_;       // useful leaves of the last point
  std::array<std::uint32_t, MdmcCpuPolicy::warm_start_leaves> next_warm_;  // ... of this one
  std::size_t warm_count_ = 0;
  std::size_t next_warm_count_ = 0;
};

}  // namespace sextant::skycube::detail
