// Which instruction sets the CPU specialisations may use, decided once per process.
#pragma once

#include <string_view>

namespace sextant {

// Ordered: a level includes the ones below it.
enum class SimdLevel { scalar, avx2, avx512 };

// The highest level this CPU runs (AVX2 = AVX2+FMA+BMI2; AVX-512 = F, BW, DQ, VL on top), or the
// level SEXTANT_SIMD=scalar|avx2|avx512 forces (lets tests and users pick a variant on any
// machine). Throws Error (unsupported) when SEXTANT_SIMD names a level this CPU lacks or no level.
SimdLevel simd_level();
// Whether SEXTANT_SIMD names the level (then a kernel's variant list offers that level's variant
// alone: cpu/simd/isa.hpp).
bool simd_forced();
// Whether the CPU itself has `level` (whatever SEXTANT_SIMD says).
bool cpu_supports(SimdLevel level) noexcept;
std::string_view to_string(SimdLevel level) noexcept;

}  // namespace sextant
