// Per-dimension comparison of two points q and p (row-major, `stride` floats each, padded
// with equal values past d so padding never changes a mask):
//   le bit j: q[j] <= p[j]     lt bit j: q[j] < p[j]     eq bit j: q[j] == p[j]
// q dominates p in subspace m iff (le & m) == m and (eq & m) != m; strictly iff (lt & m) == m.
// The AVX2 version compares 8 dimensions per instruction, the AVX-512 one 16 into mask registers;
// each is only visible in translation units compiled for it (see isa.hpp).
#pragma once

#include <cstdint>

#include "core/subspace.hpp"
#include "cpu/simd/isa.hpp"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace sextant::cpu {

struct DominanceMasks {
  Mask le = 0;
  Mask eq = 0;
  Mask lt() const noexcept { return le & ~eq; }
};

// Floats per padded row: d rounded up to a multiple of 8 (one AVX2 register).
constexpr int padded_stride(int d) noexcept {
  return (d + 7) / 8 * 8;
}

template <class Isa>
struct Dominance;

template <>
struct Dominance<ScalarIsa> {
  static DominanceMasks compare(const float* q, const float* p, int d) noexcept {
    DominanceMasks m;
    for (int j = 0; j < d; ++j) {
      m.le |= static_cast<Mask>(q[j] <= p[j]) << j;
      m.eq |= static_cast<Mask>(q[j] == p[j]) << j;
    }
    return m;
  }
  // True iff q[j] <= p[j] on every column of `subspace` (the cheap first half of a DT).
  static Mask le_mask(const float* q, const float* p, int d) noexcept { return compare(q, p, d).le; }
};

#if defined(__AVX2__)
template <>
struct Dominance<Avx2Isa> {
  // `q` and `p` must hold padded_stride(d) floats (reads whole registers).
  static DominanceMasks compare(const float* q, const float* p, int d) noexcept {
    DominanceMasks m;
    for (int j = 0; j < d; j += 8) {
      const __m256 vq = _mm256_loadu_ps(q + j);
      const __m256 vp = _mm256_loadu_ps(p + j);
      const auto le = static_cast<Mask>(_mm256_movemask_ps(_mm256_cmp_ps(vq, vp, _CMP_LE_OQ)));
      const auto eq = static_cast<Mask>(_mm256_movemask_ps(_mm256_cmp_ps(vq, vp, _CMP_EQ_OQ)));
      m.le |= le << j;
      m.eq |= eq << j;
    }
    const Mask valid = full_mask(d);
    m.le &= valid;
    m.eq &= valid;
    return m;
  }
  static Mask le_mask(const float* q, const float* p, int d) noexcept { return compare(q, p, d).le; }
};
#endif

#if defined(__AVX512F__) && defined(__AVX512VL__)
template <>
struct Dominance<Avx512Isa> {
  // `q` and `p` must hold padded_stride(d) floats; lanes past the padding are masked, never read.
  static DominanceMasks compare(const float* q, const float* p, int d) noexcept {
    DominanceMasks m;
    if (d <= 8) {  // one 256-bit compare straight into mask registers
      const __m256 vq = _mm256_loadu_ps(q);
      const __m256 vp = _mm256_loadu_ps(p);
      m.le = static_cast<Mask>(_mm256_cmp_ps_mask(vq, vp, _CMP_LE_OQ));
      m.eq = static_cast<Mask>(_mm256_cmp_ps_mask(vq, vp, _CMP_EQ_OQ));
    } else {
      const int stride = padded_stride(d);
      for (int j = 0; j < d; j += 16) {
        const auto lanes = static_cast<__mmask16>(stride - j >= 16 ? 0xFFFFu : (1u << (stride - j)) - 1);
        const __m512 vq = _mm512_maskz_loadu_ps(lanes, q + j);
        const __m512 vp = _mm512_maskz_loadu_ps(lanes, p + j);
        m.le |= static_cast<Mask>(_mm512_mask_cmp_ps_mask(lanes, vq, vp, _CMP_LE_OQ)) << j;
        m.eq |= static_cast<Mask>(_mm512_mask_cmp_ps_mask(lanes, vq, vp, _CMP_EQ_OQ)) << j;
      }
    }
    const Mask valid = full_mask(d);
    m.le &= valid;
    m.eq &= valid;
    return m;
  }
  static Mask le_mask(const float* q, const float* p, int d) noexcept { return compare(q, p, d).le; }
};
#endif

}  // namespace sextant::cpu
