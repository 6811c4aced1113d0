#include "core/dataset.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.hpp"

namespace sextant {
namespace {

TEST(Dataset, StoresRowMajorAlignedValues) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  const Dataset ds(3, 2, v);
  EXPECT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds.dims(), 2);
  EXPECT_EQ(ds(2, 1), 6.0f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ds.values().data()) % 64, 0u);
}

TEST(Dataset, MaxColumnsAreNegatedAndRestored) {
  const std::vector<float> v = {1, 2, 3, 4};
  const Dataset ds(2, 2, v, {Preference::min, Preference::max});
  EXPECT_EQ(ds(0, 0), 1.0f);
  EXPECT_EQ(ds(0, 1), -2.0f);
  EXPECT_EQ(ds.input_value(1, 1), 4.0f);
}

TEST(Dataset, RejectsNonFiniteValuesNamingRowAndColumn) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    const std::vector<float> v = {1, 2, 3, bad};
    try {
      Dataset(2, 2, v, {}, "points.csv");
      ADD_FAILURE() << "accepted a non-finite value";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      EXPECT_NE(msg.find("points.csv"), std::string::npos) << msg;
      EXPECT_NE(msg.find("row 1, column 1"), std::string::npos) << msg;
    }
  }
}

// A view is checked in blocks: every non-finite bit pattern is found wherever it lies (in a block's
// first or last value, past the first block), and the extreme finite values are accepted.
TEST(Dataset, ViewChecksEveryValue) {
  using L = std::numeric_limits<float>;
  const std::vector<float> finite = {L::max(), -L::max(), L::denorm_min(), -L::denorm_min(), L::min(), -0.0f,
                                     0.0f,     1.0f};
  const std::vector<float> bad = {L::quiet_NaN(),
                                  -L::quiet_NaN(),
                                  L::signaling_NaN(),
                                  L::infinity(),
                                  -L::infinity(),
                                  std::bit_cast<float>(0x7FC12345u),
                                  std::bit_cast<float>(0xFF800001u)};
  const int d = 3;
  const std::size_t n = 1500;
  std::vector<float> values(n * d);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = finite[i % finite.size()];
  EXPECT_NO_THROW(Dataset::view(n, d, values));
  for (const std::size_t at :
       {std::size_t{0}, std::size_t{1023}, std::size_t{1024}, std::size_t{2500}, n * d - 1})
    for (const float b : bad) {
      std::vector<float> v = values;
      v[at] = b;
      try {
        Dataset::view(n, d, v, "view");
        ADD_FAILURE() << "accepted bits " << std::bit_cast<std::uint32_t>(b) << " at " << at;
      } catch (const Error& e) {
        const std::string expected = "row " + std::to_string(at / d) + ", column " + std::to_string(at % d);
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      }
    }
}

// adopt() keeps the caller's buffer (values already in minimisation form) and checks it like
// the constructor: the first non-finite value is named wherever it lies.
TEST(Dataset, AdoptTakesTheBufferWithoutACopy) {
  AlignedBuffer<float> values(2000 * 3);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = i % 3 == 1 ? -static_cast<float>(i) : static_cast<float>(i);
  const float* const first = values.data();
  const Dataset ds =
      Dataset::adopt(2000, 3, std::move(values), {Preference::min, Preference::max, Preference::min});
  EXPECT_EQ(ds.values().data(), first);
  EXPECT_FALSE(ds.is_view());
  EXPECT_EQ(ds(1, 1), -4.0f);
  EXPECT_EQ(ds.input_value(1, 1), 4.0f);
  EXPECT_EQ(Dataset(ds)(1999, 2), 5999.0f);  // a copy owns its values

  for (float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    AlignedBuffer<float> broken(2000 * 3);
    for (std::size_t i = 0; i < broken.size(); ++i) broken[i] = 1.0f;
    broken[1234 * 3 + 2] = bad;
    broken[1500 * 3] = bad;
    try {
      Dataset::adopt(2000, 3, std::move(broken), {}, "points.csv");
      ADD_FAILURE() << "accepted a non-finite value";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find("points.csv: row 1234, column 2"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(Dataset::adopt(2, 3, AlignedBuffer<float>(5)), Error);
}

// Rows of 4, 8, 16, 32 or 64 bytes straddle lines exactly when they do not start on a multiple of
// their size; other row sizes straddle wherever they start, so no start is worse than another.
TEST(Dataset, RowsStraddleLinesOnlyOffTheirSize) {
  alignas(64) static float values[64] = {};
  const auto at = [](std::size_t bytes) {
    return reinterpret_cast<const float*>(reinterpret_cast<const char*>(values) + bytes);
  };
  for (const int d : {1, 2, 4, 8, 16}) {
    const std::size_t row = 4 * static_cast<std::size_t>(d);
    for (std::size_t offset = 0; offset < 64; offset += 4)
      EXPECT_EQ(Dataset::rows_straddle_lines(at(offset), d), offset % row != 0)
          << "d " << d << ", offset " << offset;
  }
  for (const int d : {3, 5, 6, 7, 12, 17, 32})
    for (std::size_t offset = 0; offset < 64; offset += 4)
      EXPECT_FALSE(Dataset::rows_straddle_lines(at(offset), d)) << "d " << d << ", offset " << offset;
}

TEST(Dataset, RejectsBadShapes) {
  EXPECT_THROW(Dataset(0, 0, std::vector<float>{}), Error);
  EXPECT_THROW(Dataset(1, 33, std::vector<float>(33, 0.0f)), Error);
  EXPECT_THROW(Dataset(1, 2, std::vector<float>{1, 2}, {Preference::min}), Error);
  EXPECT_NO_THROW(Dataset(0, 4, std::vector<float>{}));
}

TEST(Dataset, ParsePreferences) {
  EXPECT_EQ(parse_preferences("--prefer", "min,max", 2),
            (std::vector<Preference>{Preference::min, Preference::max}));
  EXPECT_THROW(parse_preferences("--prefer", "min", 2), Error);
  EXPECT_THROW(parse_preferences("--prefer", "min,biggest", 2), Error);
}

}  // namespace
}  // namespace sextant
