// Runs of decimal digits read 8 bytes at a time (SWAR), for the CSV readers' fast paths: a
// number's variable length costs no mispredicted branch. Internal to datagen/.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace sextant::datagen::detail {

// The digits at the start of the 8 bytes `word` (first byte lowest), when fewer than 8: how many
// (0..7) and their value; 8 when all eight are digits.
inline unsigned swar_digits(std::uint64_t word, std::uint64_t& value) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101;
  // A byte is a digit when its high nibble is 3 and its low one below 10.
  const std::uint64_t not_digit =
      ((word & 0xF0 * ones) ^ 0x30 * ones) | (((word & 0x0F * ones) + 0x06 * ones) & 0xF0 * ones);
  const unsigned count = not_digit == 0 ? 8 : static_cast<unsigned>(std::countr_zero(not_digit)) / 8;
  // The digits moved to the top bytes, as an 8-digit number with leading zeros, then combined
  // pairwise: 2, 4, then 8 digits per lane.
  std::uint64_t v = count == 0 ? 0 : (word & 0x0F * ones) << (8 * (8 - count) & 63);
  v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FF;
  v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFF;
  value = (v * 10000 + (v >> 32)) & 0xFFFFFFFF;
  return count;
}

// The 8 bytes at `p` as a little-endian word (first byte lowest).
inline std::uint64_t load_word(const char* p) noexcept {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  return word;
}

// At most 18 digits from `p`, which an int64 holds without overflow: where they stop, or nullptr
// when there is none or there are more. Numbers of up to 15 digits take one or two words.
inline const char* plain_digits(const char* p, const char* end, std::uint64_t& value) noexcept {
  static constexpr std::uint64_t powers[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
  if (end - p > 16) {
    const unsigned count = swar_digits(load_word(p), value);
    if (count < 8) return count == 0 ? nullptr : p + count;
    std::uint64_t low = 0;
    if (const unsigned more = swar_digits(load_word(p + 8), low); more < 8) {
      value = value * powers[more] + low;
      return p + 8 + more;
    }
  }
  const char* const first = p;
  std::uint64_t v = 0;
  for (; p != end && static_cast<unsigned char>(*p - '0') < 10; ++p)
    v = v * 10 + static_cast<unsigned>(*p - '0');
  if (p == first || p - first > 18) return nullptr;
  value = v;
  return p;
}

}  // namespace sextant::datagen::detail
