#include "core/column_vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sextant {
namespace {

// Counts how each element was made: a resize must default-construct (for a class, its default
// constructor runs as before), and copies must stay copies.
struct Made {
  static inline int defaults = 0;
  static inline int copies = 0;
  int value = 7;
  Made() { ++defaults; }
  explicit Made(int v) : value(v) {}
  Made(const Made& o) : value(o.value) { ++copies; }
  Made& operator=(const Made&) = default;
};

TEST(ColumnVector, ResizeDefaultConstructsAndEverythingElseIsAVector) {
  Made::defaults = Made::copies = 0;
  ColumnVector<Made> made;
  made.resize(3);
  EXPECT_EQ(Made::defaults, 3);
  EXPECT_EQ(made[2].value, 7);
  made.emplace_back(11);
  ColumnVector<Made> copy = made;
  EXPECT_EQ(copy.back().value, 11);
  EXPECT_GE(Made::copies, 4);

  // Numbers: what is written stays, the (n, value) constructor, assign and insert fill as usual.
  ColumnVector<std::int64_t> v(5, -1);
  EXPECT_EQ(v, (ColumnVector<std::int64_t>{-1, -1, -1, -1, -1}));
  v.resize(8);
  for (std::size_t i = 5; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
  EXPECT_EQ(v, (ColumnVector<std::int64_t>{-1, -1, -1, -1, -1, 5, 6, 7}));
  v.resize(8, 3);  // no growth: nothing changes
  v.resize(10, 3);
  EXPECT_EQ(v[8], 3);
  EXPECT_EQ(v[9], 3);
  const std::vector<std::int64_t> tail{40, 41};
  v.insert(v.end(), tail.begin(), tail.end());
  EXPECT_EQ(v.size(), 12u);
  EXPECT_EQ(v.back(), 41);
  v.assign(4, 0);
  EXPECT_EQ(v, (ColumnVector<std::int64_t>{0, 0, 0, 0}));

  // Swaps and moves keep the buffer (results change hands without a copy).
  ColumnVector<double> a(1000, 1.5), b;
  const double* data = a.data();
  b.swap(a);
  EXPECT_EQ(b.data(), data);
  ColumnVector<double> c(std::move(b));
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(c[999], 1.5);
}

}  // namespace
}  // namespace sextant
