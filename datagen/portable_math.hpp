// Random numbers and the two transcendental functions the generators need, written so that
// their output is the same on every compiler, standard library and thread count: splitmix64
// with random access, and log/exp from IEEE-rounded basic operations only (libm's last bit
// differs between platforms; callers compile with -ffp-contract=off, so nothing is fused).
#pragma once

#include <cmath>
#include <cstdint>

namespace sextant::datagen::detail {

inline constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;

constexpr std::uint64_t mix64(std::uint64_t z) noexcept {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Output number `index` (0-based) of the splitmix64 sequence seeded with `seed`: random access,
// so any block of draws can be produced by any thread.
constexpr std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t index) noexcept {
  return mix64(seed + (index + 1) * golden_gamma);
}

// Uniform in [0, 1) from the top 53 bits.
constexpr double unit_interval(std::uint64_t r) noexcept {
  return static_cast<double>(r >> 11) * 0x1.0p-53;
}

__extension__ typedef unsigned __int128 uint128;  // GCC and Clang

// Uniform integer in [0, n) from the high bits (Lemire's multiply-shift, bias below 2^-32).
inline std::uint64_t below(std::uint64_t r, std::uint64_t n) noexcept {
  return static_cast<std::uint64_t>((static_cast<uint128>(r) * n) >> 64);
}

inline constexpr double ln2_hi = 6.93147180369123816490e-01;  // ln 2 = hi + lo, hi has 32 bits
inline constexpr double ln2_lo = 1.90821492927058770002e-10;

// Natural logarithm of x > 0 (relative error ~1e-16): x = m * 2^e with m in [sqrt(1/2),
// sqrt(2)), log m = 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172, summed to 1e-18.
inline double portable_log(double x) noexcept {
  int e = 0;
  double m = std::frexp(x, &e);  // exact
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double series = 0;
  for (int k = 25; k >= 1; k -= 2) series = series * s2 + 1.0 / k;
  return e * ln2_hi + (e * ln2_lo + 2 * s * series);
}

// e^x for |x| < 700: x = n ln 2 + r with |r| <= ln2 / 2, e^r by its Taylor series.
inline double portable_exp(double x) noexcept {
  const double n = std::floor(x * 1.44269504088896340736 + 0.5);  // round(x / ln 2)
  const double r = (x - n * ln2_hi) - n * ln2_lo;
  double sum = 1;
  for (int k = 22; k >= 1; --k) sum = 1 + sum * r / k;
  return std::ldexp(sum, static_cast<int>(n));  // exact
}

}  // namespace sextant::datagen::detail
