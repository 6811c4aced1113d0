// Instruction-set tags. Hot CPU code is a template over one of these; each instantiation lives in
// its own translation unit (`*_avx512.cpp` and `*_avx2.cpp` built with their flags, `*_scalar.cpp`
// without), so a variant is a type: the scheduler picks among a kernel's variants by measurement
// (scheduler/task.hpp), and dispatch_isa picks one for code outside the scheduler — once per call,
// never per comparison. See cpu/CMakeLists.txt (sextant_avx2_sources, sextant_avx512_sources).
#pragma once

#include <string_view>

#include "core/cpu_features.hpp"

namespace sextant::cpu {

struct ScalarIsa {
  static constexpr std::string_view name = "scalar";
  static constexpr SimdLevel level = SimdLevel::scalar;
};
struct Avx2Isa {
  static constexpr std::string_view name = "avx2";
  static constexpr SimdLevel level = SimdLevel::avx2;
};
struct Avx512Isa {
  static constexpr std::string_view name = "avx512";
  static constexpr SimdLevel level = SimdLevel::avx512;
};

// Whether the variant built for `Isa` of a kernel with a scalar, an AVX2 and an AVX-512 variant may
// run here: the CPU has it and, where SEXTANT_SIMD names a level, it is that level (so that
// SEXTANT_SIMD=avx512 forces the AVX-512 variant as SEXTANT_SIMD=avx2 forces the AVX2 one; unset,
// every level the CPU has, and the scheduler keeps the fastest).
template <class Isa>
bool allowed() {
  return simd_forced() ? Isa::level == simd_level() : Isa::level <= simd_level();
}

namespace detail {
template <class Isa>
bool within_level() {
  return Isa::level <= simd_level();
}
}  // namespace detail

// Calls f(ScalarIsa{}) or f(Avx2Isa{}) for the running CPU (kernels with those two variants): the
// widest the CPU has up to SEXTANT_SIMD's level.
template <class F>
decltype(auto) dispatch_isa(F&& f) {
  if (detail::within_level<Avx2Isa>()) return f(Avx2Isa{});
  return f(ScalarIsa{});
}

// The same for kernels with an AVX-512 variant too.
template <class F>
decltype(auto) dispatch_isa_avx512(F&& f) {
  if (detail::within_level<Avx512Isa>()) return f(Avx512Isa{});
  if (detail::within_level<Avx2Isa>()) return f(Avx2Isa{});
  return f(ScalarIsa{});
}

}  // namespace sextant::cpu
