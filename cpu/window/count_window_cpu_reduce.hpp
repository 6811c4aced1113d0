// reduce<Isa, Agg>(values, n, position): the aggregate of a contiguous run that starts at
// `position` of the column, the inner loop of the CPU slice hook. The AVX2 overloads (sum,
// count, min, max) and the AVX-512 ones widen int32 -> int64 and float -> double in registers; every other
// aggregate takes the scalar loop, the reference shape. Included only by the per-ISA
// translation units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "cpu/simd/isa.hpp"
#include "templates/window/aggregate_traits.hpp"

namespace sextant::window::detail {

// One accumulator on purpose: GCC 12 at -O3 mis-vectorises the two-accumulator form of the
// wrapping int64 sum (it dropped a value in a 4-value run); long runs take the AVX2 path anyway.
// Templated on Isa too: instantiations in the AVX2 unit must not share a symbol with the scalar
// unit's (tests/cpu/isa_symbols.sh).
template <class Isa, class Agg>
typename Agg::Acc reduce_scalar(const typename Agg::Input* p, std::size_t n,
                                std::uint64_t position) noexcept {
  typename Agg::Acc a = Agg::identity();
  for (std::size_t i = 0; i < n; ++i)
    a = Agg::combine(a, lift<Agg>(p[i], {static_cast<std::int64_t>(position + i)}));
  return a;
}

#if defined(__AVX2__)
inline std::int64_t hsum_epi64(__m256i v) noexcept {
  const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  // In uint64: wrapping sums must not hit signed overflow (undefined, and UBSan rejects it).
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(_mm_cvtsi128_si64(s)) +
                                   static_cast<std::uint64_t>(_mm_extract_epi64(s, 1)));
}
inline double hsum_pd(__m256d v) noexcept {
  const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

// The lanes of a vector reduced to one value with Agg::combine (min/max). One overload per
// vector type: __m256i and friends carry attributes that templates would drop.
template <class Agg>
typename Agg::Acc fold_stored(const typename Agg::Input* lanes, std::size_t count) noexcept {
  typename Agg::Acc a = Agg::identity();
  for (std::size_t i = 0; i < count; ++i) a = Agg::combine(a, lanes[i]);
  return a;
}
template <class Agg>
typename Agg::Acc fold_lanes(__m256i v) noexcept {
  alignas(32) typename Agg::Input lanes[32 / sizeof(typename Agg::Input)];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  return fold_stored<Agg>(lanes, 32 / sizeof(typename Agg::Input));
}
template <class Agg>
typename Agg::Acc fold_lanes(__m256 v) noexcept {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  return fold_stored<Agg>(lanes, 8);
}
template <class Agg>
typename Agg::Acc fold_lanes(__m256d v) noexcept {
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, v);
  return fold_stored<Agg>(lanes, 4);
}

inline __m256i min_epi64(__m256i a, __m256i b) noexcept {
  return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
inline __m256i max_epi64(__m256i a, __m256i b) noexcept {
  return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}

template <class Agg>
typename Agg::Acc reduce_avx2(const typename Agg::Input* p, std::size_t n, std::uint64_t position) noexcept {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  constexpr bool is_min = std::is_same_v<Agg, Aggregate<T, AggregateKind::min>>;
  constexpr bool is_max = std::is_same_v<Agg, Aggregate<T, AggregateKind::max>>;
  constexpr std::size_t lanes = 32 / sizeof(T);
  if (n < 2 * lanes) return reduce_scalar<cpu::Avx2Isa, Agg>(p, n, position);
  std::size_t i = 0;
  Acc out = Agg::identity();
  if constexpr (std::is_same_v<Agg, Aggregate<T, AggregateKind::count>>) {
    return static_cast<Acc>(n);
  } else if constexpr (std::is_same_v<Agg, Aggregate<T, AggregateKind::sum>>) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
      for (; i + 8 <= n; i += 8) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
        a = _mm256_add_epi64(a, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)));
        b = _mm256_add_epi64(b, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
      }
      out = hsum_epi64(_mm256_add_epi64(a, b));
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
      for (; i + 8 <= n; i += 8) {
        a = _mm256_add_epi64(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
        b = _mm256_add_epi64(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 4)));
      }
      out = hsum_epi64(_mm256_add_epi64(a, b));
    } else if constexpr (std::is_same_v<T, float>) {
      __m256d a = _mm256_setzero_pd(), b = _mm256_setzero_pd();
      for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(p + i);
        a = _mm256_add_pd(a, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        b = _mm256_add_pd(b, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
      }
      out = hsum_pd(_mm256_add_pd(a, b));
    } else {
      __m256d a = _mm256_setzero_pd(), b = _mm256_setzero_pd();
      for (; i + 8 <= n; i += 8) {
        a = _mm256_add_pd(a, _mm256_loadu_pd(p + i));
        b = _mm256_add_pd(b, _mm256_loadu_pd(p + i + 4));
      }
      out = hsum_pd(_mm256_add_pd(a, b));
    }
  } else if constexpr (is_min || is_max) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
        a = is_min ? _mm256_min_epi32(a, v) : _mm256_max_epi32(a, v);
      }
      out = fold_lanes<Agg>(a);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
        a = is_min ? min_epi64(a, v) : max_epi64(a, v);
      }
      out = fold_lanes<Agg>(a);
    } else if constexpr (std::is_same_v<T, float>) {
      __m256 a = _mm256_loadu_ps(p);
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m256 v = _mm256_loadu_ps(p + i);
        a = is_min ? _mm256_min_ps(a, v) : _mm256_max_ps(a, v);
      }
      out = fold_lanes<Agg>(a);
    } else {
      __m256d a = _mm256_loadu_pd(p);
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m256d v = _mm256_loadu_pd(p + i);
        a = is_min ? _mm256_min_pd(a, v) : _mm256_max_pd(a, v);
      }
      out = fold_lanes<Agg>(a);
    }
  } else {
    return reduce_scalar<cpu::Avx2Isa, Agg>(p, n, position);
  }
  for (; i < n; ++i) out = Agg::combine(out, lift<Agg>(p[i], {static_cast<std::int64_t>(position + i)}));
  return out;
}
#endif

#if defined(__AVX512F__)
// The lanes of a 512-bit register folded with Agg::combine, as the AVX2 path does (the same
// tie rules for -0.0 and +0.0). Names carry the instruction set (tests/cpu/isa_symbols.sh).
template <class Agg, class Vector>
typename Agg::Acc fold_lanes_avx512(Vector v) noexcept {
  using T = typename Agg::Input;
  alignas(64) T lanes[64 / sizeof(T)];
  std::memcpy(lanes, &v, 64);
  typename Agg::Acc a = Agg::identity();
  for (T x : lanes) a = Agg::combine(a, x);
  return a;
}

// In uint64: wrapping sums must not hit signed overflow (GCC's _mm512_reduce_add_epi64 adds its
// last two lanes as signed long long).
inline std::int64_t hsum_epi64_avx512(__m512i v) noexcept {
  alignas(64) std::uint64_t lanes[8];
  _mm512_store_si512(lanes, v);
  std::uint64_t sum = 0;
  for (std::uint64_t x : lanes) sum += x;
  return static_cast<std::int64_t>(sum);
}

template <class Agg>
typename Agg::Acc reduce_avx512(const typename Agg::Input* p, std::size_t n,
                                std::uint64_t position) noexcept {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  constexpr bool is_min = std::is_same_v<Agg, Aggregate<T, AggregateKind::min>>;
  constexpr bool is_max = std::is_same_v<Agg, Aggregate<T, AggregateKind::max>>;
  constexpr std::size_t lanes = 64 / sizeof(T);
  if (n < 2 * lanes) return reduce_scalar<cpu::Avx512Isa, Agg>(p, n, position);
  std::size_t i = 0;
  Acc out = Agg::identity();
  if constexpr (std::is_same_v<Agg, Aggregate<T, AggregateKind::count>>) {
    return static_cast<Acc>(n);
  } else if constexpr (std::is_same_v<Agg, Aggregate<T, AggregateKind::sum>>) {
    if constexpr (std::is_same_v<T, std::int32_t>) {  // widened to int64, wrapping as in uint64
      __m512i a = _mm512_setzero_si512(), b = _mm512_setzero_si512();
      for (; i + 16 <= n; i += 16) {
        const __m512i v = _mm512_loadu_si512(p + i);
        a = _mm512_add_epi64(a, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)));
        b = _mm512_add_epi64(b, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1)));
      }
      out = hsum_epi64_avx512(_mm512_add_epi64(a, b));
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      __m512i a = _mm512_setzero_si512(), b = _mm512_setzero_si512();
      for (; i + 16 <= n; i += 16) {
        a = _mm512_add_epi64(a, _mm512_loadu_si512(p + i));
        b = _mm512_add_epi64(b, _mm512_loadu_si512(p + i + 8));
      }
      out = hsum_epi64_avx512(_mm512_add_epi64(a, b));
    } else if constexpr (std::is_same_v<T, float>) {  // widened to double
      __m512d a = _mm512_setzero_pd(), b = _mm512_setzero_pd();
      for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(p + i);
        a = _mm512_add_pd(a, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        b = _mm512_add_pd(b,
                          _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
      }
      out = _mm512_reduce_add_pd(_mm512_add_pd(a, b));
    } else {
      __m512d a = _mm512_setzero_pd(), b = _mm512_setzero_pd();
      for (; i + 16 <= n; i += 16) {
        a = _mm512_add_pd(a, _mm512_loadu_pd(p + i));
        b = _mm512_add_pd(b, _mm512_loadu_pd(p + i + 8));
      }
      out = _mm512_reduce_add_pd(_mm512_add_pd(a, b));
    }
  } else if constexpr (is_min || is_max) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      __m512i a = _mm512_loadu_si512(p);
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m512i v = _mm512_loadu_si512(p + i);
        a = is_min ? _mm512_min_epi32(a, v) : _mm512_max_epi32(a, v);
      }
      out = fold_lanes_avx512<Agg>(a);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      __m512i a = _mm512_loadu_si512(p);
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m512i v = _mm512_loadu_si512(p + i);
        a = is_min ? _mm512_min_epi64(a, v) : _mm512_max_epi64(a, v);
      }
      out = fold_lanes_avx512<Agg>(a);
    } else if constexpr (std::is_same_v<T, float>) {
      __m512 a = _mm512_loadu_ps(p);
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m512 v = _mm512_loadu_ps(p + i);
        a = is_min ? _mm512_min_ps(a, v) : _mm512_max_ps(a, v);
      }
      out = fold_lanes_avx512<Agg>(a);
    } else {
      __m512d a = _mm512_loadu_pd(p);
      for (i = lanes; i + lanes <= n; i += lanes) {
        const __m512d v = _mm512_loadu_pd(p + i);
        a = is_min ? _mm512_min_pd(a, v) : _mm512_max_pd(a, v);
      }
      out = fold_lanes_avx512<Agg>(a);
    }
  } else {
    return reduce_scalar<cpu::Avx512Isa, Agg>(p, n, position);
  }
  for (; i < n; ++i) out = Agg::combine(out, lift<Agg>(p[i], {static_cast<std::int64_t>(position + i)}));
  return out;
}
#endif

template <class Isa, class Agg>
typename Agg::Acc reduce(const typename Agg::Input* p, std::size_t n, std::uint64_t position) noexcept {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<Isa, cpu::Avx512Isa>) return reduce_avx512<Agg>(p, n, position);
#endif
#if defined(__AVX2__)
  if constexpr (std::is_same_v<Isa, cpu::Avx2Isa>) return reduce_avx2<Agg>(p, n, position);
#endif
  return reduce_scalar<Isa, Agg>(p, n, position);
}

}  // namespace sextant::window::detail
