#include "datagen/plain_float.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "testing/random_data.hpp"

namespace sextant::datagen::detail {
namespace {

// The fast path against std::from_chars: when it accepts a text it must stop where from_chars
// stops and give the same bits. Returns whether it accepted.
bool expect_as_from_chars(const std::string& text) {
  float fast = 0;
  const char* const end = parse_plain_float(text.data(), text.data() + text.size(), fast);
  if (end == nullptr) return false;
  float reference = 0;
  const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), reference);
  EXPECT_EQ(ec, std::errc{}) << text;
  EXPECT_EQ(end, stop) << text;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(fast), std::bit_cast<std::uint32_t>(reference))
      << text << ": " << fast << " vs " << reference;
  return true;
}

TEST(PlainFloat, ShortestFormsOfRandomFloatsReadBackExactly) {
  testing::SplitMix64 rng(5);
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    // Random finite floats over many magnitudes, and uniform ones in [0, 1) as generators write.
    const float f = i % 2 == 0 ? std::ldexp(static_cast<float>(rng.next() >> 40) / 16777216.0f,
                                            static_cast<int>(rng.below(60)) - 30)
                               : static_cast<float>(rng.next() >> 40) / 16777216.0f;
    for (const std::chars_format format : {std::chars_format::general, std::chars_format::fixed}) {
      char buffer[64];
      const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, i % 3 == 0 ? -f : f, format);
      ASSERT_EQ(ec, std::errc{});
      accepted += expect_as_from_chars(std::string(buffer, end)) ? 1 : 0;
    }
  }
  EXPECT_GT(accepted, 200000);  // the fixed forms and most general ones take the fast path
}

TEST(PlainFloat, RandomDigitStringsMatchFromChars) {
  testing::SplitMix64 rng(11);
  int accepted = 0;
  for (int i = 0; i < 300000; ++i) {
    std::string text = rng.below(4) == 0 ? "-" : "";
    const auto digits = 1 + static_cast<int>(rng.below(21));  // up to 21: past the 19-digit limit
    const auto point = static_cast<int>(rng.below(static_cast<std::uint64_t>(digits) + 1));
    for (int k = 0; k < digits; ++k) {
      if (k == point && k > 0) text += '.';
      text += static_cast<char>('0' + rng.below(10));
    }
    if (rng.below(8) == 0) text += ",5";  // what follows a cell
    accepted += expect_as_from_chars(text) ? 1 : 0;
  }
  EXPECT_GT(accepted, 150000);
}

TEST(PlainFloat, HalfwayCasesAndOtherShapesAreLeftToFromChars) {
  // Exactly halfway between two floats: 2^24 + 1 and + 3 (ties to even: down, then up), and
  // 0.5 + 2^-25 written out exactly.
  EXPECT_FALSE(expect_as_from_chars("16777217"));
  EXPECT_FALSE(expect_as_from_chars("16777219"));
  EXPECT_FALSE(expect_as_from_chars("0.5000000298023223876953125"));  // also > 19 digits
  EXPECT_TRUE(expect_as_from_chars("16777218"));
  for (const char* text : {"1e5", "1.5E-3", "-.5", ".5", "5.", "+1", "inf", "nan", "-", "", "1.5e",
                           "12345678901234567890", "9007199254740993"}) {
    float value = 0;
    EXPECT_EQ(parse_plain_float(text, text + std::char_traits<char>::length(text), value), nullptr) << text;
  }
  // Accepted shapes stop where from_chars stops.
  for (const char* text : {"0", "-0", "-0.0", "007.250", "1.5.3", "2x", "3 ", "0x1p3", "9007199254740992",
                           "0.000000000000000001", "900719925474099.2"})
    EXPECT_TRUE(expect_as_from_chars(text)) << text;
  float zero = 1;
  const std::string minus_zero = "-0.000";
  ASSERT_NE(parse_plain_float(minus_zero.data(), minus_zero.data() + minus_zero.size(), zero), nullptr);
  EXPECT_TRUE(std::signbit(zero));
}

}  // namespace
}  // namespace sextant::datagen::detail
