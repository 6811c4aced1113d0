// Unsigned arithmetic that sticks at the maximum instead of wrapping: worst cases of merged groups
// (products of gain limits) and their queue bytes can exceed 64 bits.
#pragma once

#include <cstdint>
#include <limits>

namespace sextant::pipeline::detail {

constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a == 0 || b == 0) return 0;
  if (a > std::numeric_limits<std::uint64_t>::max() / b) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}

}  // namespace sextant::pipeline::detail
