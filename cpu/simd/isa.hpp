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

// Whether a variant built for `Isa` may run here: the CPU has it and SEXTANT_SIMD allows it
// (SEXTANT_SIMD=avx2 keeps AVX-512 variants out).
template <class Isa>
bool allowed() {
  return Isa::level <= simd_level();
}

// Calls f(ScalarIsa{}) or f(Avx2Isa{}) for the running CPU (kernels with those two variants).
template <class F>
decltype(auto) dispatch_isa(F&& f) {
  if (allowed<Avx2Isa>()) return f(Avx2Isa{});
  return f(ScalarIsa{});
}

// The same for kernels with an AVX-512 variant too.
template <class F>
decltype(auto) dispatch_isa_avx512(F&& f) {
  if (allowed<Avx512Isa>()) return f(Avx512Isa{});
  if (allowed<Avx2Isa>()) return f(Avx2Isa{});
  return f(ScalarIsa{});
}

}  // namespace sextant::cpu
