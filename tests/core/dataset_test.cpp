#include "core/dataset.hpp"

#include <gtest/gtest.h>

#include <cmath>
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
