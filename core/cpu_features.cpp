#include "core/cpu_features.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace sextant {

namespace {

bool detect(SimdLevel level) noexcept {
  if (level == SimdLevel::scalar) return true;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  if (level == SimdLevel::avx2) return avx2;
  return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

SimdLevel best() noexcept {
  for (const SimdLevel l : {SimdLevel::avx512, SimdLevel::avx2})
    if (detect(l)) return l;
  return SimdLevel::scalar;
}

SimdLevel decide() {
  const char* forced = std::getenv("SEXTANT_SIMD");
  if (forced == nullptr || *forced == '\0') return best();
  const std::string name(forced);
  for (const SimdLevel l : {SimdLevel::scalar, SimdLevel::avx2, SimdLevel::avx512}) {
    if (name != to_string(l)) continue;
    if (!detect(l))
      throw Error::unsupported("SEXTANT_SIMD=" + name + ": this CPU has no " + name + " (it has " +
                               std::string(to_string(best())) + "); unset it or name a lower level");
    return l;
  }
  throw Error::argument("SEXTANT_SIMD", name, "scalar, avx2 or avx512 (or unset: the best this CPU has)",
                        "unknown instruction-set level");
}

}  // namespace

SimdLevel simd_level() {
  static const SimdLevel level = decide();  // a throw leaves it undecided: the next call throws again
  return level;
}

bool simd_forced() {
  static const bool forced = [] {
    const char* name = std::getenv("SEXTANT_SIMD");
    return name != nullptr && *name != '\0';
  }();
  return forced;
}

bool cpu_supports(SimdLevel level) noexcept {
  return detect(level);
}

std::string_view to_string(SimdLevel level) noexcept {
  switch (level) {
    case SimdLevel::scalar:
      return "scalar";
    case SimdLevel::avx2:
      return "avx2";
    case SimdLevel::avx512:
      return "avx512";
  }
  return "scalar";
}

}  // namespace sextant
