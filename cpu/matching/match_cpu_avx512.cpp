// The AVX-512 Bloom scan of the matching hook (built with SEXTANT_AVX512_FLAGS; run only where
// cpu::allowed<Avx512Isa>()): eight signatures per instruction, straight into a mask register.
#include <immintrin.h>

#include "cpu/matching/match_cpu_kernel.hpp"
#include "cpu/simd/isa.hpp"

namespace sextant::matching::detail {

template <>
std::uint64_t BloomScan<cpu::Avx512Isa>::survivors(const std::uint64_t* blooms, std::uint32_t count,
                                                   std::uint64_t event_bloom) noexcept {
  const __m512i missing = _mm512_set1_epi64(static_cast<long long>(~event_bloom));
  std::uint64_t out = 0;
  for (std::uint32_t f = 0; f < count; f += 8) {
    const __m512i b = _mm512_loadu_si512(blooms + f);
    out |= static_cast<std::uint64_t>(_mm512_testn_epi64_mask(b, missing)) << f;
  }
  return count >= 64 ? out : out & ((std::uint64_t{1} << count) - 1);
}

}  // namespace sextant::matching::detail
