// The hot loops of the CPU cuboid algorithm (see cuboid_state.hpp), as templates over the ISA.
// Included only by cuboid_kernels_avx2.cpp (compiled with AVX2 flags) and
// cuboid_kernels_scalar.cpp; every helper is a template over Isa so that no inline function is
// shared between the two translation units. No allocation here: buffers are sized by the driver.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "cpu/simd/dominance.hpp"
#include "cpu/skycube/cuboid_state.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace sextant::cpu::detail::kernels {

// A query point: its padded row, pivot masks and the subspace.
struct Probe {
  const float* row;
  std::uint32_t below_median;
  std::uint32_t below_quartile;
  Mask mask;
  int d;
};

template <class Isa>
struct Ops;

template <>
struct Ops<ScalarIsa> {
  static void labels(const float* row, const SortedCandidates& s, std::uint32_t& b1, std::uint32_t& b2) noexcept {
    b1 = 0;
    b2 = 0;
    for (int j = 0; j < s.d; ++j) {
      const bool below = row[j] < s.median[j];
      const float pivot = below ? s.quartile_low[j] : s.quartile_high[j];
      b1 |= static_cast<std::uint32_t>(below) << j;
      b2 |= static_cast<std::uint32_t>(row[j] < pivot) << j;
    }
  }
  static std::uint32_t pext(std::uint32_t x, std::uint32_t m) noexcept { return extract_bits(x, m); }

  // Calls test(i) for every i in [begin, begin + count) that passes the mask test (Equation 1 on
  // the median masks, then on the quartile masks of columns on the same side of the median);
  // stops when test returns true.
  template <class Test>
  static bool for_each_candidate(const std::uint32_t* median, const std::uint32_t* quartile, std::size_t begin,
                                 std::size_t count, const Probe& p, Test&& test) {
    for (std::size_t i = begin; i < begin + count; ++i) {
      const std::uint32_t fail =
          ((p.below_median & ~median[i]) | (~(p.below_median ^ median[i]) & p.below_quartile & ~quartile[i])) &
          p.mask;
      if (fail == 0 && test(i)) return true;
    }
    return false;
  }
};

#if defined(__AVX2__)
template <>
struct Ops<Avx2Isa> {
  static void labels(const float* row, const SortedCandidates& s, std::uint32_t& b1, std::uint32_t& b2) noexcept {
    b1 = 0;
    b2 = 0;
    for (int j = 0; j < s.stride; j += 8) {
      const __m256 v = _mm256_load_ps(row + j);
      const __m256 below = _mm256_cmp_ps(v, _mm256_load_ps(s.median.data() + j), _CMP_LT_OQ);
      const __m256 pivot =
          _mm256_blendv_ps(_mm256_load_ps(s.quartile_high.data() + j), _mm256_load_ps(s.quartile_low.data() + j), below);
      b1 |= static_cast<std::uint32_t>(_mm256_movemask_ps(below)) << j;
      b2 |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v, pivot, _CMP_LT_OQ))) << j;
    }
    b1 &= full_mask(s.d);
    b2 &= full_mask(s.d);
  }
  static std::uint32_t pext(std::uint32_t x, std::uint32_t m) noexcept { return _pext_u32(x, m); }

  template <class Test>
  static bool for_each_candidate(const std::uint32_t* median, const std::uint32_t* quartile, std::size_t begin,
                                 std::size_t count, const Probe& p, Test&& test) {
    const __m256i pm = _mm256_set1_epi32(static_cast<int>(p.below_median));
    const __m256i pq = _mm256_set1_epi32(static_cast<int>(p.below_quartile));
    const __m256i mask = _mm256_set1_epi32(static_cast<int>(p.mask));
    const __m256i zero = _mm256_setzero_si256();
    for (std::size_t k = 0; k < count; k += 8) {
      const std::size_t at = begin + k;
      const __m256i qm = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(median + at));
      const __m256i qq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(quartile + at));
      const __m256i fail_median = _mm256_andnot_si256(qm, pm);
      const __m256i fail_quartile = _mm256_andnot_si256(_mm256_xor_si256(pm, qm), _mm256_andnot_si256(qq, pq));
      const __m256i fail = _mm256_and_si256(_mm256_or_si256(fail_median, fail_quartile), mask);
      auto pass = static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(fail, zero))));
      if (count - k < 8) pass &= (1u << (count - k)) - 1;
      for (; pass != 0; pass &= pass - 1)
        if (test(at + static_cast<std::size_t>(std::countr_zero(pass)))) return true;
    }
    return false;
  }
};
#endif

// One DT of q against p; updates the verdict. Returns true when p is strictly dominated.
template <class Isa, bool Classify>
inline bool dominance_step(const float* q, const Probe& p, Verdict& v) noexcept {
  const DominanceMasks m = Dominance<Isa>::compare(q, p.row, p.d);
  const Mask le = m.le & p.mask;
  const Mask eq = m.eq & p.mask;
  if ((le & ~eq) == p.mask) {
    v = Verdict::excluded;
    return true;
  }
  if constexpr (Classify)
    if (le == p.mask && eq != p.mask) v = Verdict::extended;
  return false;
}

// p against the confirmed set: the groups whose key covers p's key, strongest (all columns
// below the median) first, then the ungrouped tail.
template <class Isa, bool Classify>
Verdict query_confirmed(const ConfirmedView& set, int stride, const Probe& p) noexcept {
  Verdict v = Verdict::skyline;
  const auto s = static_cast<std::size_t>(stride);
  const auto test = [&](std::size_t i) { return dominance_step<Isa, Classify>(set.rows + i * s, p, v); };
  const std::uint32_t key = Ops<Isa>::pext(p.below_median, set.group_mask);
  const std::uint32_t free = (set.groups - 1) & ~key;
  for (std::uint32_t sub = free;; sub = (sub - 1) & free) {
    const std::uint32_t g = key | sub;
    if (set.count[g] != 0 &&
        Ops<Isa>::for_each_candidate(set.below_median, set.below_quartile, set.start[g], set.count[g], p, test))
      return v;
    if (sub == 0) break;
  }
  if (set.tail_count != 0)
    Ops<Isa>::for_each_candidate(set.below_median, set.below_quartile, set.tail_start, set.tail_count, p, test);
  return v;
}

template <class Isa>
void phase1(CuboidState& state, std::size_t begin, std::size_t end) {
  const SortedCandidates& s = state.sorted;
  BlockState& block = state.block;
  const ConfirmedView set = state.confirmed.view();
  const auto stride = static_cast<std::size_t>(s.stride);
  const auto d = static_cast<std::size_t>(s.d);
  constexpr std::size_t prefetch_distance = 8;
  for (std::size_t i = begin; i < end; ++i) {
    if (i + prefetch_distance < end) __builtin_prefetch(s.data->row(s.ids[i + prefetch_distance]));
    const std::size_t r = i - block.begin;
    float* row = block.rows.data() + r * stride;
    const float* src = s.data->row(s.ids[i]);
    for (std::size_t j = 0; j < d; ++j) row[j] = src[j];
    for (std::size_t j = d; j < stride; ++j) row[j] = 0.0f;
    std::uint32_t b1 = 0;
    std::uint32_t b2 = 0;
    Ops<Isa>::labels(row, s, b1, b2);
    block.below_median[r] = b1;
    block.below_quartile[r] = b2;
    const Probe p{row, b1, b2, s.mask, s.d};
    block.first[r] = s.classify ? query_confirmed<Isa, true>(set, s.stride, p) : query_confirmed<Isa, false>(set, s.stride, p);
  }
}

template <class Isa, bool Classify>
Verdict query_block(const BlockState& block, std::size_t r, std::size_t witnesses, int stride, const Probe& p) noexcept {
  Verdict v = block.first[r];
  const auto s = static_cast<std::size_t>(stride);
  const auto test = [&](std::size_t k) {
    return dominance_step<Isa, Classify>(block.rows.data() + block.witness_row[k] * s, p, v);
  };
  Ops<Isa>::for_each_candidate(block.witness_median.data(), block.witness_quartile.data(), 0, witnesses, p, test);
  return v;
}

template <class Isa>
void phase2(CuboidState& state, std::size_t begin, std::size_t end) {
  const SortedCandidates& s = state.sorted;
  BlockState& block = state.block;
  const auto stride = static_cast<std::size_t>(s.stride);
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t r = i - block.begin;
    if (block.first[r] == Verdict::excluded) {
      block.final_verdict[r] = Verdict::excluded;
      continue;
    }
    // Witnesses before p in score order, and those after it with the same score.
    const std::size_t witnesses = block.witness_prefix[s.run_end[i] - block.begin];
    const Probe p{block.rows.data() + r * stride, block.below_median[r], block.below_quartile[r], s.mask, s.d};
    block.final_verdict[r] = s.classify ? query_block<Isa, true>(block, r, witnesses, s.stride, p)
                                        : query_block<Isa, false>(block, r, witnesses, s.stride, p);
  }
}

}  // namespace sextant::cpu::detail::kernels

namespace sextant::cpu::detail {
template <class Isa>
CuboidKernels cuboid_kernels() noexcept {
  return {&kernels::phase1<Isa>, &kernels::phase2<Isa>};
}
}  // namespace sextant::cpu::detail
