// A fast path for the decimals that CSV datasets are made of ("0.74777406", "-12", "3.5"): read
// as an integer and a power of ten, divided once in double precision, then rounded to float.
// The result is the correctly rounded float, bit for bit what std::from_chars gives, or nothing:
// an exponent, more than 19 digits, a mantissa above 2^53, or a quotient that lands exactly halfway
// between two floats (where rounding twice could differ from rounding once) are left to the caller.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace sextant::datagen::detail {

// Parses [first, last) from its first character: '-'? digit+ ('.' digit+)?, then anything but
// an exponent. Returns where it stopped, or nullptr when the text is not of that shape or the
// fast path cannot round it exactly (the caller then asks std::from_chars).
inline const char* parse_plain_float(const char* first, const char* last, float& value) noexcept {
  static constexpr std::array<double, 20> powers = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                                    1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                                    1e14, 1e15, 1e16, 1e17, 1e18, 1e19};
  const char* p = first;
  const bool negative = p != last && *p == '-';
  p += negative ? 1 : 0;
  std::uint64_t mantissa = 0;
  int digits = 0;
  const auto read_digits = [&] {
    const char* const start = p;
    for (; p != last && static_cast<unsigned char>(*p - '0') < 10; ++p)
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');  // wraps past 19 digits: refused below
    digits += static_cast<int>(p - start);
    return static_cast<int>(p - start);
  };
  if (read_digits() == 0) return nullptr;
  int fraction = 0;
  if (p != last && *p == '.') {
    ++p;
    fraction = read_digits();
    if (fraction == 0) return nullptr;
  }
  if (digits > 19 || mantissa > (std::uint64_t{1} << 53)) return nullptr;
  if (p != last && (*p == 'e' || *p == 'E')) return nullptr;
  // Both operands are exact doubles, so the quotient is the correctly rounded double of the
  // decimal. Rounding it to float is exact unless it sits on a float midpoint: its 29 bits below
  // float precision are then exactly 1000...0 (normal numbers only; these are >= 1e-19).
  const double quotient = static_cast<double>(mantissa) / powers[static_cast<std::size_t>(fraction)];
  if ((std::bit_cast<std::uint64_t>(quotient) & ((std::uint64_t{1} << 29) - 1)) == (std::uint64_t{1} << 28))
    return nullptr;
  const auto rounded = static_cast<float>(quotient);
  value = negative ? -rounded : rounded;
  return p;
}

}  // namespace sextant::datagen::detail
