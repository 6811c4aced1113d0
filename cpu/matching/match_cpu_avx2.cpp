// The AVX2 Bloom scan of the matching hook (built with SEXTANT_AVX2_FLAGS; run only where
// cpu::allowed<Avx2Isa>(), see cpu/simd/isa.hpp): four signatures per instruction.
#include <immintrin.h>

#include "cpu/matching/match_cpu_kernel.hpp"
#include "cpu/simd/isa.hpp"

namespace sextant::matching::detail {

template <>
std::uint64_t BloomScan<cpu::Avx2Isa>::survivors(const std::uint64_t* blooms, std::uint32_t count,
                                                 std::uint64_t event_bloom) noexcept {
  const __m256i have = _mm256_set1_epi64x(static_cast<long long>(event_bloom));
  const __m256i zero = _mm256_setzero_si256();
  std::uint64_t out = 0;
  for (std::uint32_t f = 0; f < count; f += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blooms + f));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blooms + f + 4));
    const __m256i ma = _mm256_cmpeq_epi64(_mm256_andnot_si256(have, a), zero);
    const __m256i mb = _mm256_cmpeq_epi64(_mm256_andnot_si256(have, b), zero);
    const auto bits = static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(ma))) |
                      (static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(mb))) << 4);
    out |= bits << f;
  }
  return count >= 64 ? out : out & ((std::uint64_t{1} << count) - 1);
}

}  // namespace sextant::matching::detail
