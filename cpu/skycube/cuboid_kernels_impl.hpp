// The hot loops of the CPU cuboid algorithm (see cuboid_state.hpp), as templates over the ISA.
// Included only by cuboid_kernels_<isa>.cpp (scalar; AVX2 and AVX-512, each compiled with its
// flags); every helper is a template over Isa so that no inline function is shared between the
// translation units (tests/cpu/isa_symbols.sh checks it). No allocation here: buffers are sized by the
// driver.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "cpu/simd/dominance.hpp"
#include "cpu/skycube/cuboid_state.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace sextant::cpu::detail::kernels {

// A query point: its padded row, its code words and the subspace.
struct Probe {
  const float* row;
  const std::uint64_t* codes;
  Mask mask;
  int d;
};

// Packs 7-bit codes (one byte per column) into the quantiser's words.
template <class Isa>
void pack_codes(const std::uint8_t* bytes, int d, const Quantiser& q, std::uint64_t* words) noexcept {
  if (q.field_bits == 8) {
    std::memcpy(words, bytes, static_cast<std::size_t>(q.words) * 8);
    return;
  }
  std::uint64_t w = 0;
  for (int j = 0; j < d; ++j) w |= std::uint64_t{static_cast<std::uint8_t>(bytes[j] >> 3)} << (5 * j);
  words[0] = w;
}

template <class Isa>
struct Ops;

template <>
struct Ops<ScalarIsa> {
  // The point's code words and below-median mask.
  static std::uint32_t encode(const float* row, const SortedCandidates& s, std::uint64_t* words) noexcept {
    const Quantiser& q = s.quantiser;
    const auto stride = static_cast<std::size_t>(s.stride);
    std::uint32_t below_median = 0;
    std::uint8_t bytes[32] = {};
    for (int j = 0; j < s.d; ++j) {
      const auto c = static_cast<std::size_t>(j);
      const float x = row[j];
      const int piece = static_cast<int>(x >= q.bound[stride + c]) +
                        static_cast<int>(x >= q.bound[2 * stride + c]) +
                        static_cast<int>(x >= q.bound[3 * stride + c]);
      const std::size_t at = static_cast<std::size_t>(piece) * stride + c;
      float t = (x - q.bound[at]) * q.scale[at];
      if (!(t > 0.0f)) t = 0.0f;  // also NaN (inf * 0)
      if (t > static_cast<float>(Quantiser::codes_per_piece - 1)) t = Quantiser::codes_per_piece - 1;
      bytes[j] = static_cast<std::uint8_t>(piece * Quantiser::codes_per_piece + static_cast<int>(t));
      below_median |= static_cast<std::uint32_t>(piece < 2) << j;
    }
    pack_codes<ScalarIsa>(bytes, s.d, q, words);
    return below_median;
  }
  static std::uint32_t pext(std::uint32_t x, std::uint32_t m) noexcept { return extract_bits(x, m); }

  // Calls test(i) for every i in [begin, begin + count) whose codes are <= p's on every column
  // of δ; stops when test returns true.
  template <int Words, class Test>
  static bool for_each_candidate(const std::uint64_t* codes, std::size_t begin, std::size_t count,
                                 const Probe& p, const Quantiser& q, Test&& test) {
    std::uint64_t pw[Words];
    for (int w = 0; w < Words; ++w) pw[w] = p.codes[w] | q.high;
    for (std::size_t i = begin; i < begin + count; ++i) {
      bool pass = true;
      for (int w = 0; w < Words; ++w)
        pass = pass && ((pw[w] - codes[i * Words + w]) & q.guard[w]) == q.guard[w];
      if (pass && test(i)) return true;
    }
    return false;
  }
};

#if defined(__AVX2__)
template <>
struct Ops<Avx2Isa> {
  static std::uint32_t encode(const float* row, const SortedCandidates& s, std::uint64_t* words) noexcept {
    const Quantiser& q = s.quantiser;
    const auto stride = static_cast<std::size_t>(s.stride);
    const float* bound = q.bound.data();
    const float* scale = q.scale.data();
    std::uint32_t above_median = 0;
    alignas(32) std::uint8_t bytes[32] = {};
    const __m256 zero = _mm256_setzero_ps();
    const __m256 top = _mm256_set1_ps(static_cast<float>(Quantiser::codes_per_piece - 1));
    for (std::size_t j = 0; j < stride; j += 8) {
      const __m256 x = _mm256_load_ps(row + j);
      const __m256 ge1 = _mm256_cmp_ps(x, _mm256_load_ps(bound + stride + j), _CMP_GE_OQ);
      const __m256 ge2 = _mm256_cmp_ps(x, _mm256_load_ps(bound + 2 * stride + j), _CMP_GE_OQ);
      const __m256 ge3 = _mm256_cmp_ps(x, _mm256_load_ps(bound + 3 * stride + j), _CMP_GE_OQ);
      __m256 b = _mm256_load_ps(bound + j);
      __m256 k = _mm256_load_ps(scale + j);
      b = _mm256_blendv_ps(b, _mm256_load_ps(bound + stride + j), ge1);
      k = _mm256_blendv_ps(k, _mm256_load_ps(scale + stride + j), ge1);
      b = _mm256_blendv_ps(b, _mm256_load_ps(bound + 2 * stride + j), ge2);
      k = _mm256_blendv_ps(k, _mm256_load_ps(scale + 2 * stride + j), ge2);
      b = _mm256_blendv_ps(b, _mm256_load_ps(bound + 3 * stride + j), ge3);
      k = _mm256_blendv_ps(k, _mm256_load_ps(scale + 3 * stride + j), ge3);
      // max(t, 0) first: a NaN t (inf * 0) becomes 0.
      const __m256 t = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_sub_ps(x, b), k), zero), top);
      // piece = number of bounds passed: the compare masks are -1 per passed bound.
      const __m256i piece = _mm256_sub_epi32(
          _mm256_setzero_si256(),
          _mm256_add_epi32(_mm256_add_epi32(_mm256_castps_si256(ge1), _mm256_castps_si256(ge2)),
                           _mm256_castps_si256(ge3)));
      const __m256i code = _mm256_add_epi32(_mm256_cvttps_epi32(t), _mm256_slli_epi32(piece, 5));
      const __m128i halves =
          _mm_packus_epi32(_mm256_castsi256_si128(code), _mm256_extracti128_si256(code, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(bytes + j), _mm_packus_epi16(halves, halves));
      above_median |= static_cast<std::uint32_t>(_mm256_movemask_ps(ge2)) << j;
    }
    const Mask columns = full_mask(s.d);
    for (std::size_t j = static_cast<std::size_t>(s.d); j < stride; ++j) bytes[j] = 0;
    pack_codes<Avx2Isa>(bytes, s.d, q, words);
    return ~above_median & columns;
  }
  static std::uint32_t pext(std::uint32_t x, std::uint32_t m) noexcept { return _pext_u32(x, m); }

  // 4 words per register: Words = 1: four points, 2: two, 4: one. Most points fail, so the main
  // loop tests four registers with one branch and looks at single points only when one passed.
  template <int Words, class Test>
  static bool for_each_candidate(const std::uint64_t* codes, std::size_t begin, std::size_t count,
                                 const Probe& p, const Quantiser& q, Test&& test) {
    constexpr std::size_t per_register = 4 / Words;
    __m256i ph;
    __m256i g;
    if constexpr (Words == 1) {
      ph = _mm256_set1_epi64x(static_cast<long long>(p.codes[0] | q.high));
      g = _mm256_set1_epi64x(static_cast<long long>(q.guard[0]));
    } else if constexpr (Words == 2) {
      const auto p0 = static_cast<long long>(p.codes[0] | q.high);
      const auto p1 = static_cast<long long>(p.codes[1] | q.high);
      ph = _mm256_set_epi64x(p1, p0, p1, p0);
      g = _mm256_set_epi64x(static_cast<long long>(q.guard[1]), static_cast<long long>(q.guard[0]),
                            static_cast<long long>(q.guard[1]), static_cast<long long>(q.guard[0]));
    } else {
      ph = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.codes)),
                           _mm256_set1_epi64x(static_cast<long long>(q.high)));
      g = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.guard.data()));
    }
    // All ones in the 64-bit words whose δ fields all passed.
    const auto words_ok = [&](std::size_t point) {
      const __m256i qv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + point * Words));
      return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_sub_epi64(ph, qv), g), g);
    };
    // One bit per point of a register whose words all passed.
    const auto points_ok = [](__m256i ok) {
      const auto b = static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(ok)));
      if constexpr (Words == 1) return b;
      if constexpr (Words == 2) return (b & (b >> 1) & 1u) | ((b >> 2) & (b >> 3) & 1u) << 1;
      if constexpr (Words == 4) return static_cast<std::uint32_t>(b == 15u);
    };
    const auto visit = [&](std::size_t at, std::uint32_t pass) {
      for (; pass != 0; pass &= pass - 1)
        if (test(at + static_cast<std::size_t>(std::countr_zero(pass)))) return true;
      return false;
    };
    constexpr std::size_t per_step = 4 * per_register;
    std::size_t k = 0;
    for (; k + per_step <= count; k += per_step) {
      const std::size_t at = begin + k;
      const __m256i c0 = words_ok(at);
      const __m256i c1 = words_ok(at + per_register);
      const __m256i c2 = words_ok(at + 2 * per_register);
      const __m256i c3 = words_ok(at + 3 * per_register);
      const __m256i any = _mm256_or_si256(_mm256_or_si256(c0, c1), _mm256_or_si256(c2, c3));
      if (_mm256_testz_si256(any, any)) continue;
      const std::uint32_t pass = points_ok(c0) | points_ok(c1) << per_register |
                                 points_ok(c2) << (2 * per_register) | points_ok(c3) << (3 * per_register);
      if (visit(at, pass)) return true;
    }
    for (; k < count; k += per_register) {
      std::uint32_t pass = points_ok(words_ok(begin + k));
      if (count - k < per_register) pass &= (1u << (count - k)) - 1;
      if (pass != 0 && visit(begin + k, pass)) return true;
    }
    return false;
  }
};
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
template <>
struct Ops<Avx512Isa> {
  // 16 columns per step (8 for the last 8 of the padded row, in 256-bit registers: Zen 4 splits
  // 512-bit operations, so half-empty ones would cost double): the bound compares go straight to
  // mask registers, which select the piece, count it and give the below-median mask; vpmovdb
  // narrows the codes to bytes.
  static std::uint32_t encode(const float* row, const SortedCandidates& s, std::uint64_t* words) noexcept {
    const Quantiser& q = s.quantiser;
    const auto stride = static_cast<std::size_t>(s.stride);
    const float* bound = q.bound.data();
    const float* scale = q.scale.data();
    std::uint32_t above_median = 0;
    alignas(64) std::uint8_t bytes[32] = {};
    std::size_t j = 0;
    for (; j + 16 <= stride; j += 16) {
      const __m512 top = _mm512_set1_ps(static_cast<float>(Quantiser::codes_per_piece - 1));
      const __m512i piece_codes = _mm512_set1_epi32(Quantiser::codes_per_piece);
      const __m512 x = _mm512_loadu_ps(row + j);
      const __m512 b1 = _mm512_loadu_ps(bound + stride + j);
      const __m512 b2 = _mm512_loadu_ps(bound + 2 * stride + j);
      const __m512 b3 = _mm512_loadu_ps(bound + 3 * stride + j);
      const __mmask16 ge1 = _mm512_cmp_ps_mask(x, b1, _CMP_GE_OQ);
      const __mmask16 ge2 = _mm512_cmp_ps_mask(x, b2, _CMP_GE_OQ);
      const __mmask16 ge3 = _mm512_cmp_ps_mask(x, b3, _CMP_GE_OQ);
      __m512 b = _mm512_loadu_ps(bound + j);
      __m512 k = _mm512_loadu_ps(scale + j);
      b = _mm512_mask_blend_ps(ge1, b, b1);
      k = _mm512_mask_loadu_ps(k, ge1, scale + stride + j);
      b = _mm512_mask_blend_ps(ge2, b, b2);
      k = _mm512_mask_loadu_ps(k, ge2, scale + 2 * stride + j);
      b = _mm512_mask_blend_ps(ge3, b, b3);
      k = _mm512_mask_loadu_ps(k, ge3, scale + 3 * stride + j);
      // max(t, 0) first: a NaN t (inf * 0) becomes 0. (The maskz forms: GCC 12 warns about the
      // undefined pass-through operand of the plain ones.)
      const __m512 t = _mm512_maskz_min_ps(
          0xFFFF, _mm512_maskz_max_ps(0xFFFF, _mm512_mul_ps(_mm512_sub_ps(x, b), k), _mm512_setzero_ps()),
          top);
      // + 32 per bound passed.
      __m512i code = _mm512_maskz_cvttps_epi32(0xFFFF, t);
      code = _mm512_mask_add_epi32(code, ge1, code, piece_codes);
      code = _mm512_mask_add_epi32(code, ge2, code, piece_codes);
      code = _mm512_mask_add_epi32(code, ge3, code, piece_codes);
      _mm512_mask_cvtepi32_storeu_epi8(bytes + j, 0xFFFF, code);
      above_median |= static_cast<std::uint32_t>(ge2) << j;
    }
    if (j < stride) {  // the last 8 (stride is a multiple of 8)
      const __m256 top = _mm256_set1_ps(static_cast<float>(Quantiser::codes_per_piece - 1));
      const __m256i piece_codes = _mm256_set1_epi32(Quantiser::codes_per_piece);
      const __m256 x = _mm256_loadu_ps(row + j);
      const __m256 b1 = _mm256_loadu_ps(bound + stride + j);
      const __m256 b2 = _mm256_loadu_ps(bound + 2 * stride + j);
      const __m256 b3 = _mm256_loadu_ps(bound + 3 * stride + j);
      const __mmask8 ge1 = _mm256_cmp_ps_mask(x, b1, _CMP_GE_OQ);
      const __mmask8 ge2 = _mm256_cmp_ps_mask(x, b2, _CMP_GE_OQ);
      const __mmask8 ge3 = _mm256_cmp_ps_mask(x, b3, _CMP_GE_OQ);
      __m256 b = _mm256_loadu_ps(bound + j);
      __m256 k = _mm256_loadu_ps(scale + j);
      b = _mm256_mask_blend_ps(ge1, b, b1);
      k = _mm256_mask_loadu_ps(k, ge1, scale + stride + j);
      b = _mm256_mask_blend_ps(ge2, b, b2);
      k = _mm256_mask_loadu_ps(k, ge2, scale + 2 * stride + j);
      b = _mm256_mask_blend_ps(ge3, b, b3);
      k = _mm256_mask_loadu_ps(k, ge3, scale + 3 * stride + j);
      const __m256 t =
          _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_sub_ps(x, b), k), _mm256_setzero_ps()), top);
      __m256i code = _mm256_cvttps_epi32(t);
      code = _mm256_mask_add_epi32(code, ge1, code, piece_codes);
      code = _mm256_mask_add_epi32(code, ge2, code, piece_codes);
      code = _mm256_mask_add_epi32(code, ge3, code, piece_codes);
      _mm256_mask_cvtepi32_storeu_epi8(bytes + j, 0xFF, code);
      above_median |= static_cast<std::uint32_t>(ge2) << j;
    }
    const Mask columns = full_mask(s.d);
    for (std::size_t c = static_cast<std::size_t>(s.d); c < stride; ++c) bytes[c] = 0;
    if (q.field_bits == 8) {
      std::memcpy(words, bytes, static_cast<std::size_t>(q.words) * 8);
    } else {
      // 5-bit fields of the top 4 code bits (d <= 12): pext gathers bits 3..6 of every byte,
      // pdep spreads them to fields 0, 5, 10, ...
      std::uint64_t lo = 0;
      std::uint32_t hi = 0;
      std::memcpy(&lo, bytes, 8);
      std::memcpy(&hi, bytes + 8, 4);
      constexpr std::uint64_t fields = 0x07BDEF7BDEF7BDEFull;  // the low 4 bits of 12 5-bit fields
      const std::uint64_t nibbles =
          _pext_u64(lo, 0x7878787878787878ull) | std::uint64_t{_pext_u32(hi, 0x78787878u)} << 32;
      words[0] = _pdep_u64(nibbles, fields);
    }
    return ~above_median & columns;
  }
  static std::uint32_t pext(std::uint32_t x, std::uint32_t m) noexcept { return _pext_u32(x, m); }

  // 8 words per register (Words = 1: eight points, 2: four, 4: two) and four registers per
  // step, whose compares land in mask registers: one kortest skips a step where no point passed.
  // The rest goes one register at a time with masked loads (no read past the end).
  template <int Words, class Test>
  static bool for_each_candidate(const std::uint64_t* codes, std::size_t begin, std::size_t count,
                                 const Probe& p, const Quantiser& q, Test&& test) {
    constexpr std::size_t per_register = 8 / Words;
    constexpr std::size_t per_step = 4 * per_register;
    __m512i ph;
    __m512i g;
    if constexpr (Words == 1) {
      ph = _mm512_set1_epi64(static_cast<long long>(p.codes[0] | q.high));
      g = _mm512_set1_epi64(static_cast<long long>(q.guard[0]));
    } else if constexpr (Words == 2) {
      const __m128i p2 = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p.codes)),
                                      _mm_set1_epi64x(static_cast<long long>(q.high)));
      ph = _mm512_maskz_broadcast_i64x2(0xFF, p2);
      g = _mm512_maskz_broadcast_i64x2(0xFF,
                                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(q.guard.data())));
    } else {
      const __m256i p4 = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.codes)),
                                         _mm256_set1_epi64x(static_cast<long long>(q.high)));
      ph = _mm512_maskz_broadcast_i64x4(0xFF, p4);
      g = _mm512_maskz_broadcast_i64x4(0xFF,
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.guard.data())));
    }
    // One bit per 64-bit word whose δ fields all passed.
    const auto words_ok = [&](std::size_t point, __mmask8 lanes) {
      const __m512i qv = _mm512_maskz_loadu_epi64(lanes, codes + point * Words);
      return _mm512_mask_cmpeq_epi64_mask(lanes, _mm512_and_si512(_mm512_sub_epi64(ph, qv), g), g);
    };
    // One bit per point of a register whose words all passed.
    const auto points_ok = [](__mmask8 ok) {
      const auto b = static_cast<std::uint32_t>(ok);
      if constexpr (Words == 1) return b;
      if constexpr (Words == 2) return _pext_u32(b & (b >> 1), 0x55u);
      if constexpr (Words == 4) return static_cast<std::uint32_t>((b & 15u) == 15u) | ((b >> 4) == 15u) << 1;
    };
    const auto visit = [&](std::size_t at, std::uint32_t pass) {
      for (; pass != 0; pass &= pass - 1)
        if (test(at + static_cast<std::size_t>(std::countr_zero(pass)))) return true;
      return false;
    };
    std::size_t k = 0;
    for (; k + per_step <= count; k += per_step) {
      const std::size_t at = begin + k;
      const __mmask8 c0 = words_ok(at, 0xFF);
      const __mmask8 c1 = words_ok(at + per_register, 0xFF);
      const __mmask8 c2 = words_ok(at + 2 * per_register, 0xFF);
      const __mmask8 c3 = words_ok(at + 3 * per_register, 0xFF);
      if (_kortestz_mask8_u8(_kor_mask8(c0, c1), _kor_mask8(c2, c3))) continue;
      const std::uint32_t pass = points_ok(c0) | points_ok(c1) << per_register |
                                 points_ok(c2) << (2 * per_register) | points_ok(c3) << (3 * per_register);
      if (visit(at, pass)) return true;
    }
    // The rest one register at a time, loading only the words that exist.
    for (; k < count; k += per_register) {
      const std::size_t words = (count - k) * Words;
      const auto lanes = static_cast<__mmask8>(words >= 8 ? 0xFFu : (1u << words) - 1);
      const std::uint32_t pass = points_ok(words_ok(begin + k, lanes));
      if (pass != 0 && visit(begin + k, pass)) return true;
    }
    return false;
  }
};
#endif

// One DT of q against p; updates the verdict. Returns true when p is strictly dominated.
template <class Isa, bool Classify>
inline bool dominance_step(const float* q, const Probe& p, Verdict& v) noexcept {
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
  if constexpr (std::is_same_v<Isa, Avx512Isa>) {
    // δ's columns are the lane mask of the loads and compares: no column outside δ is read and
    // the masks need no trimming. Strict dominance is lt on every column of δ; dominance is le
    // on every column and lt on some.
    Mask le = 0;
    Mask lt = 0;
    if (p.d <= 8) {
      const auto lanes = static_cast<__mmask8>(p.mask);
      const __m256 vq = _mm256_maskz_loadu_ps(lanes, q);
      const __m256 vp = _mm256_maskz_loadu_ps(lanes, p.row);
      lt = _mm256_mask_cmp_ps_mask(lanes, vq, vp, _CMP_LT_OQ);
      if constexpr (Classify) le = _mm256_mask_cmp_ps_mask(lanes, vq, vp, _CMP_LE_OQ);
    } else {
      for (int j = 0; j < p.d; j += 16) {
        const auto lanes = static_cast<__mmask16>(p.mask >> j);
        const __m512 vq = _mm512_maskz_loadu_ps(lanes, q + j);
        const __m512 vp = _mm512_maskz_loadu_ps(lanes, p.row + j);
        lt |= static_cast<Mask>(_mm512_mask_cmp_ps_mask(lanes, vq, vp, _CMP_LT_OQ)) << j;
        if constexpr (Classify)
          le |= static_cast<Mask>(_mm512_mask_cmp_ps_mask(lanes, vq, vp, _CMP_LE_OQ)) << j;
      }
    }
    if (lt == p.mask) {
      v = Verdict::excluded;
      return true;
    }
    if constexpr (Classify)
      if (le == p.mask && lt != 0) v = Verdict::extended;
    return false;
  }
#endif
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

// Points of [start, start + count) with a sorted position below `limit` (the range is in
// sorted-position order).
template <class Isa>
std::size_t points_below(const std::uint32_t* positions, std::size_t start, std::size_t count,
                         std::size_t limit) noexcept {
  if (count == 0 || positions[start] >= limit) return 0;
  if (positions[start + count - 1] < limit) return count;
  std::size_t lo = 0;
  std::size_t hi = count;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (positions[start + mid] < limit)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// p against a confirmed set: the groups whose key covers p's key, strongest (all columns below
// the median) first, then the ungrouped tail. Limited: only points with a sorted position below
// `limit` (the cross phase: other partitions hold later points too).
template <class Isa, bool Classify, int Words, bool Limited>
Verdict query_confirmed(const ConfirmedView& set, const SortedCandidates& s, const Probe& p,
                        std::uint32_t below_median, Verdict v, std::size_t limit) noexcept {
  const auto stride = static_cast<std::size_t>(s.stride);
  const auto test = [&](std::size_t i) { return dominance_step<Isa, Classify>(set.rows + i * stride, p, v); };
  const auto scan = [&](std::size_t start, std::size_t count) {
    if constexpr (Limited) count = points_below<Isa>(set.positions, start, count, limit);
    if (count == 0) return false;
    return Ops<Isa>::template for_each_candidate<Words>(set.codes, start, count, p, s.quantiser, test);
  };
  const std::uint32_t key = Ops<Isa>::pext(below_median, set.group_mask);
  const std::uint32_t free = (set.groups - 1) & ~key;
  for (std::uint32_t sub = free;; sub = (sub - 1) & free) {
    const std::uint32_t g = key | sub;
    if (set.count[g] != 0 && scan(set.start[g], set.count[g])) return v;
    if (sub == 0) break;
  }
  if (set.tail_count != 0) scan(set.tail_start, set.tail_count);
  return v;
}

// Copies the point at sorted position `position` into `row` (padded) and encodes it.
template <class Isa>
std::uint32_t load_point(const SortedCandidates& s, std::size_t position, float* row,
                         std::uint64_t* codes) noexcept {
  const auto stride = static_cast<std::size_t>(s.stride);
  const auto d = static_cast<std::size_t>(s.d);
  const float* src = s.data->row(s.ids[position]);
  for (std::size_t j = 0; j < d; ++j) row[j] = src[j];
  for (std::size_t j = d; j < stride; ++j) row[j] = 0.0f;
  return Ops<Isa>::encode(row, s, codes);
}

template <class Isa, bool Classify, int Words>
void phase1_points(CuboidState& state, std::size_t begin, std::size_t end) {
  const SortedCandidates& s = *state.sorted;
  const Partition& part = state.partition;
  BlockState& block = state.block;
  const ConfirmedView set = state.confirmed.view();
  const auto stride = static_cast<std::size_t>(s.stride);
  constexpr std::size_t prefetch_distance = 8;
  for (std::size_t i = begin; i < end; ++i) {
    if (i + prefetch_distance < end)
      __builtin_prefetch(s.data->row(s.ids[part.position(i + prefetch_distance)]));
    const std::size_t r = i - block.begin;
    float* row = block.rows.data() + r * stride;
    std::uint64_t* codes = block.codes.data() + r * Words;
    const std::uint32_t below_median = load_point<Isa>(s, part.position(i), row, codes);
    block.below_median[r] = below_median;
    block.first[r] = query_confirmed<Isa, Classify, Words, false>(set, s, Probe{row, codes, s.mask, s.d},
                                                                  below_median, Verdict::skyline, 0);
  }
}

template <class Isa, bool Classify, int Words>
void phase2_points(CuboidState& state, std::size_t begin, std::size_t end) {
  const SortedCandidates& s = *state.sorted;
  const Partition& part = state.partition;
  BlockState& block = state.block;
  const WitnessList& list = state.witnesses;
  const auto stride = static_cast<std::size_t>(s.stride);
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t r = i - block.begin;
    Verdict v = block.first[r];
    if (v != Verdict::excluded) {
      // Witnesses before p in score order, and those after it with the same score.
      const std::size_t local_end = part.count_below(s.run_end[part.position(i)]);
      const std::size_t witnesses = list.prefix[local_end - block.begin];
      const Probe p{block.rows.data() + r * stride, block.codes.data() + r * Words, s.mask, s.d};
      const auto test = [&](std::size_t k) {
        return dominance_step<Isa, Classify>(block.rows.data() + std::size_t{list.rows[k]} * stride, p, v);
      };
      Ops<Isa>::template for_each_candidate<Words>(list.codes.data(), 0, witnesses, p, s.quantiser, test);
    }
    block.final_verdict[r] = v;
  }
}

// The survivors at sorted positions [begin, end) (of every partition) against the other
// partitions' witnesses of lower or equal score. parts[scratch]'s tile buffers hold one point of
// scratch (sized by the driver).
template <class Isa, bool Classify, int Words>
void cross_points(std::span<CuboidState> parts, std::size_t scratch, std::size_t begin, std::size_t end,
                  Verdict* verdicts) {
  const SortedCandidates& s = *parts[0].sorted;
  float* row = parts[scratch].block.rows.data();
  std::uint64_t* codes = parts[scratch].block.codes.data();
  for (std::size_t position = begin; position < end; ++position) {
    Verdict& v = verdicts[s.positions[position]];
    if (v == Verdict::excluded) continue;
    const std::size_t self = position % parts.size();
    const std::uint32_t below_median = load_point<Isa>(s, position, row, codes);
    const Probe p{row, codes, s.mask, s.d};
    for (std::size_t other = 0; other < parts.size() && v != Verdict::excluded; ++other)
      if (other != self)
        v = query_confirmed<Isa, Classify, Words, true>(parts[other].confirmed.view(), s, p, below_median, v,
                                                        s.run_end[position]);
  }
}

// ---- the prefilter (cuboid_state.hpp: Prefilter) -----------------------------------------------

// The filter points of up to 8 columns held in registers for a whole pass (Columns = 0: any
// number, read from memory). One bit per lane whose point removes the row.
template <class Isa, int Columns, bool Strict>
struct FilterTest {
  static constexpr int held = Columns > 0 ? Columns : 1;
  int columns[max_columns];
  int count;
  const Prefilter* f;
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
  __m512 q512[held];
#endif
#if defined(__AVX2__)
  __m256 q256[held][2];
#endif

  explicit FilterTest(const Prefilter& filter) : count(static_cast<int>(filter.columns.size())), f(&filter) {
    for (int c = 0; c < count; ++c) columns[c] = filter.columns[static_cast<std::size_t>(c)];
    if constexpr (Columns > 0) {
      for (int c = 0; c < Columns; ++c) {
        [[maybe_unused]] const float* v =
            filter.values.data() + static_cast<std::size_t>(c) * Prefilter::lanes;
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
        if constexpr (std::is_same_v<Isa, Avx512Isa>) q512[c] = _mm512_load_ps(v);
#endif
#if defined(__AVX2__)
        if constexpr (!std::is_same_v<Isa, ScalarIsa>) {
          q256[c][0] = _mm256_load_ps(v);
          q256[c][1] = _mm256_load_ps(v + 8);
        }
#endif
      }
    }
  }

  std::uint32_t operator()(const float* row) const noexcept {
    constexpr bool fixed = Columns > 0;
    const int n = fixed ? Columns : count;
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
    if constexpr (std::is_same_v<Isa, Avx512Isa>) {
      __mmask16 le = 0xFFFF;
      __mmask16 lt = Strict ? 0xFFFF : 0;
      for (int c = 0; c < n; ++c) {
        const __m512 p = _mm512_set1_ps(row[columns[c]]);
        const __m512 q =
            fixed ? q512[c]
                  : _mm512_load_ps(f->values.data() + static_cast<std::size_t>(c) * Prefilter::lanes);
        if constexpr (Strict) {
          lt = _mm512_mask_cmp_ps_mask(lt, q, p, _CMP_LT_OQ);
        } else {
          le = _mm512_mask_cmp_ps_mask(le, q, p, _CMP_LE_OQ);
          lt = static_cast<__mmask16>(lt | _mm512_cmp_ps_mask(q, p, _CMP_LT_OQ));
        }
      }
      return static_cast<std::uint32_t>(Strict ? lt : le & lt);
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same_v<Isa, Avx2Isa>) {
      const __m256 ones = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
      __m256 le0 = ones, le1 = ones;
      __m256 lt0 = Strict ? ones : _mm256_setzero_ps();
      __m256 lt1 = lt0;
      for (int c = 0; c < n; ++c) {
        const __m256 p = _mm256_broadcast_ss(row + columns[c]);
        const float* v = f->values.data() + static_cast<std::size_t>(c) * Prefilter::lanes;
        const __m256 q0 = fixed ? q256[c][0] : _mm256_load_ps(v);
        const __m256 q1 = fixed ? q256[c][1] : _mm256_load_ps(v + 8);
        if constexpr (Strict) {
          lt0 = _mm256_and_ps(lt0, _mm256_cmp_ps(q0, p, _CMP_LT_OQ));
          lt1 = _mm256_and_ps(lt1, _mm256_cmp_ps(q1, p, _CMP_LT_OQ));
        } else {
          le0 = _mm256_and_ps(le0, _mm256_cmp_ps(q0, p, _CMP_LE_OQ));
          le1 = _mm256_and_ps(le1, _mm256_cmp_ps(q1, p, _CMP_LE_OQ));
          lt0 = _mm256_or_ps(lt0, _mm256_cmp_ps(q0, p, _CMP_LT_OQ));
          lt1 = _mm256_or_ps(lt1, _mm256_cmp_ps(q1, p, _CMP_LT_OQ));
        }
      }
      if constexpr (!Strict) {
        lt0 = _mm256_and_ps(le0, lt0);
        lt1 = _mm256_and_ps(le1, lt1);
      }
      return static_cast<std::uint32_t>(_mm256_movemask_ps(lt0)) |
             static_cast<std::uint32_t>(_mm256_movemask_ps(lt1)) << 8;
    }
#endif
    std::uint32_t out = 0;
    for (int lane = 0; lane < f->count; ++lane) {
      bool le = true;
      bool lt_some = false;
      bool lt_all = true;
      for (int c = 0; c < n && le; ++c) {
        const float q =
            f->values[static_cast<std::size_t>(c) * Prefilter::lanes + static_cast<std::size_t>(lane)];
        const float p = row[columns[c]];
        le = q <= p;
        lt_some = lt_some || q < p;
        lt_all = lt_all && q < p;
      }
      if (Strict ? le && lt_all : le && lt_some) out |= 1u << lane;
    }
    return out;
  }
};

template <class Isa, int Columns, bool Strict>
std::size_t prefilter_pass(const Dataset& data, CandidateList candidates, std::size_t begin, std::size_t end,
                           const Prefilter& f, PointId* out) {
  const FilterTest<Isa, Columns, Strict> removed_by(f);
  std::size_t kept = 0;
  if (candidates.is_all) {
    for (std::size_t i = begin; i < end; ++i) {
      out[kept] = static_cast<PointId>(i);
      kept += removed_by(data.row(static_cast<PointId>(i))) == 0 ? 1 : 0;
    }
    return kept;
  }
  constexpr std::size_t prefetch_distance = 16;
  for (std::size_t i = begin; i < end; ++i) {
    const PointId id = candidates.ids[i];
    if (i + prefetch_distance < end) __builtin_prefetch(data.row(candidates.ids[i + prefetch_distance]));
    out[kept] = id;
    kept += removed_by(data.row(id)) == 0 ? 1 : 0;
  }
  return kept;
}

template <class Isa, bool Strict>
std::size_t prefilter_columns(const Dataset& data, CandidateList candidates, std::size_t begin,
                              std::size_t end, const Prefilter& f, PointId* out) {
  switch (f.columns.size()) {
    case 1:
      return prefilter_pass<Isa, 1, Strict>(data, candidates, begin, end, f, out);
    case 2:
      return prefilter_pass<Isa, 2, Strict>(data, candidates, begin, end, f, out);
    case 3:
      return prefilter_pass<Isa, 3, Strict>(data, candidates, begin, end, f, out);
    case 4:
      return prefilter_pass<Isa, 4, Strict>(data, candidates, begin, end, f, out);
    case 5:
      return prefilter_pass<Isa, 5, Strict>(data, candidates, begin, end, f, out);
    case 6:
      return prefilter_pass<Isa, 6, Strict>(data, candidates, begin, end, f, out);
    case 7:
      return prefilter_pass<Isa, 7, Strict>(data, candidates, begin, end, f, out);
    case 8:
      return prefilter_pass<Isa, 8, Strict>(data, candidates, begin, end, f, out);
    default:
      return prefilter_pass<Isa, 0, Strict>(data, candidates, begin, end, f, out);
  }
}

template <class Isa>
std::size_t prefilter(const Dataset& data, CandidateList candidates, std::size_t begin, std::size_t end,
                      const Prefilter& f, PointId* out) {
  return f.strict ? prefilter_columns<Isa, true>(data, candidates, begin, end, f, out)
                  : prefilter_columns<Isa, false>(data, candidates, begin, end, f, out);
}

// Which sample points each filter candidate removes, 64 sample points at a time: plain loops that
// each ISA's flags vectorise, and a multiply that gathers the low bit of 8 flag bytes into one
// byte (byte j's bit lands on bit j).
template <class Isa>
void prefilter_removals(const float* sample, std::size_t padded, const float* candidates, std::size_t pool,
                        std::size_t columns, bool strict, std::uint64_t* removed) noexcept {
  constexpr std::uint64_t gather = 0x0102040810204080ull;
  const std::size_t words = padded / 64;
  for (std::size_t k = 0; k < pool; ++k) {
    for (std::size_t w = 0; w < words; ++w) {
      alignas(64) std::uint8_t le[64], lt_some[64], lt_all[64];
      for (std::size_t i = 0; i < 64; ++i) le[i] = 1, lt_some[i] = 0, lt_all[i] = 1;
      for (std::size_t c = 0; c < columns; ++c) {
        const float a = candidates[c * pool + k];
        const float* v = sample + c * padded + w * 64;
        for (std::size_t i = 0; i < 64; ++i) {
          le[i] &= static_cast<std::uint8_t>(a <= v[i]);
          lt_some[i] |= static_cast<std::uint8_t>(a < v[i]);
          lt_all[i] &= static_cast<std::uint8_t>(a < v[i]);
        }
      }
      const std::uint8_t* lt = strict ? lt_all : lt_some;
      std::uint64_t bits = 0;
      for (std::size_t j = 0; j < 8; ++j) {
        std::uint64_t a = 0, b = 0;
        std::memcpy(&a, le + 8 * j, 8);
        std::memcpy(&b, lt + 8 * j, 8);
        bits |= ((a & b) * gather >> 56) << (8 * j);
      }
      removed[k * words + w] = bits;
    }
  }
}

// Picks the instantiation for the mode and the code width once per call (a chunk of points).
template <class Isa, template <class, bool, int> class Phase, class... Args>
void dispatch(const SortedCandidates& s, Args&&... args) {
  switch (s.quantiser.words) {
    case 1:
      return s.classify ? Phase<Isa, true, 1>::run(args...) : Phase<Isa, false, 1>::run(args...);
    case 2:
      return s.classify ? Phase<Isa, true, 2>::run(args...) : Phase<Isa, false, 2>::run(args...);
    default:
      return s.classify ? Phase<Isa, true, 4>::run(args...) : Phase<Isa, false, 4>::run(args...);
  }
}

template <class Isa, bool Classify, int Words>
struct Phase1 {
  static void run(CuboidState& state, std::size_t begin, std::size_t end) {
    phase1_points<Isa, Classify, Words>(state, begin, end);
  }
};
template <class Isa, bool Classify, int Words>
struct Phase2 {
  static void run(CuboidState& state, std::size_t begin, std::size_t end) {
    phase2_points<Isa, Classify, Words>(state, begin, end);
  }
};
template <class Isa, bool Classify, int Words>
struct Cross {
  static void run(std::span<CuboidState> parts, std::size_t scratch, std::size_t begin, std::size_t end,
                  Verdict* verdicts) {
    cross_points<Isa, Classify, Words>(parts, scratch, begin, end, verdicts);
  }
};

template <class Isa>
void phase1(CuboidState& state, std::size_t begin, std::size_t end) {
  dispatch<Isa, Phase1>(*state.sorted, state, begin, end);
}
template <class Isa>
void phase2(CuboidState& state, std::size_t begin, std::size_t end) {
  dispatch<Isa, Phase2>(*state.sorted, state, begin, end);
}
template <class Isa>
void cross(std::span<CuboidState> parts, std::size_t scratch, std::size_t begin, std::size_t end,
           Verdict* verdicts) {
  dispatch<Isa, Cross>(*parts[0].sorted, parts, scratch, begin, end, verdicts);
}

}  // namespace sextant::cpu::detail::kernels

namespace sextant::cpu::detail {
template <class Isa>
CuboidKernels cuboid_kernels() noexcept {
  return {&kernels::prefilter<Isa>, &kernels::prefilter_removals<Isa>, &kernels::phase1<Isa>,
          &kernels::phase2<Isa>, &kernels::cross<Isa>};
}
}  // namespace sextant::cpu::detail
