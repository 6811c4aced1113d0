// Which instruction set the CPU specialisations may use, decided once per process.
#pragma once

#include <string_view>

namespace sextant {

enum class SimdLevel { scalar, avx2 };

// AVX2+FMA+BMI2 when the CPU has them, unless SEXTANT_SIMD=scalar is set in the environment
// (lets tests and users exercise the fallback on any machine).
SimdLevel simd_level() noexcept;
std::string_view to_string(SimdLevel level) noexcept;

}  // namespace sextant
