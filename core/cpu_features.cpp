#include "core/cpu_features.hpp"

#include <cstdlib>
#include <cstring>

namespace sextant {

namespace {
SimdLevel detect() noexcept {
  if (const char* forced = std::getenv("SEXTANT_SIMD"); forced != nullptr && std::strcmp(forced, "scalar") == 0)
    return SimdLevel::scalar;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return SimdLevel::avx2;
#endif
  return SimdLevel::scalar;
}
}  // namespace

SimdLevel simd_level() noexcept {
  static const SimdLevel level = detect();
  return level;
}

std::string_view to_string(SimdLevel level) noexcept {
  return level == SimdLevel::avx2 ? "avx2" : "scalar";
}

}  // namespace sextant
