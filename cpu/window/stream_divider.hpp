// Division of non-negative 64-bit integers by an invariant divisor (the pane length) with one
// multiply-high and a shift: the hot loop turns every timestamp into a pane id, and a hardware
// 64-bit division costs 20-40 cycles where this costs ~4.
#pragma once

#include <bit>
#include <cstdint>

namespace sextant::window::detail {

__extension__ typedef unsigned __int128 Uint128;  // GCC and Clang; __extension__: no -Wpedantic

class PaneDivider {
 public:
  // 1 <= d <= 2^62.
  explicit PaneDivider(std::int64_t d) noexcept : divisor_(d) {
    const auto du = static_cast<std::uint64_t>(d);
    shift_ = static_cast<int>(std::bit_width(du - 1));  // l = ceil(log2 d)
    // Granlund-Montgomery for 63-bit dividends: m = ceil(2^(63+l) / d) < 2^64 and
    // floor(n / d) = floor(n * m / 2^(63+l)) for every 0 <= n < 2^63. Doubling n first keeps
    // the shift non-negative when d = 1 (l = 0).
    const Uint128 one = 1;
    magic_ = static_cast<std::uint64_t>(((one << (63 + shift_)) + du - 1) / du);
  }

  std::int64_t divisor() const noexcept { return divisor_; }

  [[gnu::always_inline]] std::int64_t operator()(std::int64_t n) const noexcept {
    const auto twice = static_cast<std::uint64_t>(n) << 1;
    const auto hi = static_cast<std::uint64_t>((static_cast<Uint128>(twice) * magic_) >> 64);
    return static_cast<std::int64_t>(hi >> shift_);
  }

 private:
  std::int64_t divisor_ = 1;
  std::uint64_t magic_ = 0;
  int shift_ = 0;
};

}  // namespace sextant::window::detail
