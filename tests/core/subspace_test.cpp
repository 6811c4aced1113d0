#include "core/subspace.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"

namespace sextant {
namespace {

TEST(Subspace, FullMaskAndCounts) {
  EXPECT_EQ(full_mask(1), 0x1u);
  EXPECT_EQ(full_mask(8), 0xFFu);
  EXPECT_EQ(full_mask(32), 0xFFFFFFFFu);
  EXPECT_EQ(subspace_count(3), 7u);
  EXPECT_EQ(bit_of(1), 0u);
  EXPECT_EQ(bit_of(7), 6u);
}

TEST(Subspace, SubmaskIterationVisitsEveryNonEmptySubmaskOnce) {
  for (Mask m : {0x1u, 0x5u, 0x2Du, 0xFFu}) {
    std::set<Mask> seen;
    for_each_submask(m, [&](Mask s) {
      EXPECT_TRUE(is_submask(s, m));
      EXPECT_NE(s, 0u);
      EXPECT_TRUE(seen.insert(s).second) << "submask " << s << " visited twice";
    });
    EXPECT_EQ(seen.size(), (std::size_t{1} << level(m)) - 1);
  }
}

TEST(Subspace, MasksAtLevelMatchPopcountFilter) {
  for (int d = 1; d <= 10; ++d) {
    for (int lvl = 0; lvl <= d + 1; ++lvl) {
      std::vector<Mask> expected;
      for (Mask m = 1; m <= full_mask(d); ++m)
        if (level(m) == lvl) expected.push_back(m);
      EXPECT_EQ(masks_at_level(d, lvl), expected) << "d=" << d << " level=" << lvl;
    }
  }
}

TEST(Subspace, ParseColumnList) {
  EXPECT_EQ(parse_column_list("--subspace", "0,3,5", 8), 0x29u);
  EXPECT_EQ(parse_column_list("--subspace", "7", 8), 0x80u);
  for (const char* bad : {"", "8", "-1", "1,,2", "a", "1,"}) {
    try {
      parse_column_list("--subspace", bad, 8);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--subspace"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("0..7"), std::string::npos) << e.what();
    }
  }
}

// One shape check for every skycube entry point: the same message whoever asks.
TEST(Subspace, SkycubeShapeCheckHasOneMessage) {
  const auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_argument) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "accepted";
    return {};
  };
  EXPECT_NO_THROW(check_skycube_shape(1, 1));
  EXPECT_NO_THROW(check_skycube_shape(20, 3));
  EXPECT_NO_THROW(check_skycube_columns(20));
  EXPECT_EQ(message([] { check_skycube_shape(21, 2); }),
            "d = 21: a skycube needs 2^d-1 subspaces; d <= 20 supported (valid: 1..20)");
  EXPECT_EQ(message([] { check_skycube_columns(0); }),
            "d = 0: a skycube needs 2^d-1 subspaces; d <= 20 supported (valid: 1..20)");
  EXPECT_EQ(message([] { check_skycube_shape(4, 5); }),
            "max_level = 5: out of range (valid: 1..4 (the column count))");
  EXPECT_EQ(message([] { check_skycube_shape(4, 0); }),
            "max_level = 0: out of range (valid: 1..4 (the column count))");
  // Huge values from a file header are not truncated on the way in.
  EXPECT_NE(message([] { check_skycube_shape(4294967295LL, 1); }).find("d = 4294967295"), std::string::npos);
}

}  // namespace
}  // namespace sextant
