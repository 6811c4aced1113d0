// Instruction-set tags. Hot CPU code is a template over one of these; each instantiation
// lives in its own translation unit (`*_avx2.cpp` built with AVX2 flags, `*_scalar.cpp`
// without) and one dispatch function picks by core/cpu_features.hpp at run time, once per
// call — never per comparison. See cpu/CMakeLists.txt (sextant_avx2_sources).
#pragma once

#include <string_view>

namespace sextant::cpu {

struct ScalarIsa {
  static constexpr std::string_view name = "scalar";
};
struct Avx2Isa {
  static constexpr std::string_view name = "avx2";
};

// Calls f(ScalarIsa{}) or f(Avx2Isa{}) for the running CPU.
template <class F>
decltype(auto) dispatch_isa(F&& f);

}  // namespace sextant::cpu

#include "core/cpu_features.hpp"

namespace sextant::cpu {
template <class F>
decltype(auto) dispatch_isa(F&& f) {
  if (simd_level() == SimdLevel::avx2) return f(Avx2Isa{});
  return f(ScalarIsa{});
}
}  // namespace sextant::cpu
