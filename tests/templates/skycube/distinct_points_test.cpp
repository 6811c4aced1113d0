// Exact duplicates collapsed once (templates/skycube/distinct_points.hpp) and the HashCube pieces
// it and the partial lattice rest on: expanding a cube's ids to groups, the word positions a
// partial cube stores and inserting rows of only those positions.
#include "templates/skycube/distinct_points.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "support/thread_team.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "testing/random_data.hpp"

namespace sextant::skycube {
namespace {

using detail::DistinctPoints;

TEST(DistinctPoints, WithoutDuplicatesRunsOnTheDataItself) {
  const Dataset data = testing::random_dataset(500, 4, 0, 7, 0);
  const DistinctPoints distinct(data);
  EXPECT_FALSE(distinct.has_duplicates());
  EXPECT_EQ(&distinct.data(), &data);
  const std::vector<PointId> ids{0, 3, 9};
  EXPECT_EQ(distinct.original_count(ids), 3u);
}

// Above 8 192 rows a sample decides whether to collapse: copies next to each other and copies
// spread over the rows are both found; distinct data is left alone.
TEST(DistinctPoints, LargeDatasetsAreSampledFirst) {
  const Dataset distinct = testing::random_dataset(20000, 4, 0, 3, 0);
  EXPECT_FALSE(DistinctPoints(distinct).has_duplicates());
  std::vector<float> twice;
  for (PointId i = 0; i < 10000; ++i)
    for (int copy = 0; copy < 2; ++copy) twice.insert(twice.end(), distinct.row(i), distinct.row(i) + 4);
  const Dataset adjacent(20000, 4, twice, {}, "adjacent copies");
  const DistinctPoints a(adjacent);
  ASSERT_TRUE(a.has_duplicates());
  EXPECT_EQ(a.data().size(), 10000u);
  const Dataset few_values = testing::random_dataset(20000, 3, 3, 5, 0);  // 27 possible vectors
  const DistinctPoints f(few_values);
  ASSERT_TRUE(f.has_duplicates());
  EXPECT_LE(f.data().size(), 27u);
}

// The table starts small (4 096 slots, half of them usable) and regrows as groups appear: 2 700
// vectors, each at rows i, i + 2 700 and i + 5 400, keep their groups across the regrowth.
TEST(DistinctPoints, GroupsSurviveTheTableRegrowing) {
  const Dataset base = testing::random_dataset(2700, 3, 0, 21, 0);
  std::vector<float> values;
  for (int copy = 0; copy < 3; ++copy)
    values.insert(values.end(), base.values().begin(), base.values().end());
  const Dataset data(8100, 3, values, {}, "three copies");
  const DistinctPoints distinct(data);
  ASSERT_TRUE(distinct.has_duplicates());
  const Dataset& rep = distinct.data();
  ASSERT_EQ(rep.size(), 2700u);
  for (PointId g = 0; g < 2700; ++g) {
    for (int c = 0; c < 3; ++c) ASSERT_EQ(rep(g, c), base(g, c)) << "group " << g;
    ASSERT_EQ(distinct.original_count(std::vector<PointId>{g}), 3u) << "group " << g;
  }
}

// On a team, ranges of rows are grouped apart and merged: groups keep the order of their first
// id, also those first seen in the second range (vectors 100 .. 299 appear only from row 70 000).
TEST(DistinctPoints, RangesOnATeamMergeInOrderOfFirstIds) {
  const Dataset base = testing::random_dataset(300, 3, 0, 23, 0);
  const std::size_t n = 140000;
  std::vector<float> values;
  std::vector<PointId> source(n);  // the base row of each row
  for (std::size_t i = 0; i < n; ++i) {
    source[i] = static_cast<PointId>(i < 70000 ? i % 100 : i % 300);
    values.insert(values.end(), base.row(source[i]), base.row(source[i]) + 3);
  }
  const Dataset data(n, 3, values, {}, "two ranges");
  std::vector<PointId> order;  // base rows in order of first appearance
  std::vector<std::size_t> copies(300, 0);
  for (const PointId b : source)
    if (copies[b]++ == 0) order.push_back(b);
  for (const int threads : {1, 2, 3}) {
    testing::ThreadTeam team(threads);
    const DistinctPoints distinct(data, team);
    ASSERT_TRUE(distinct.has_duplicates());
    ASSERT_EQ(distinct.data().size(), 300u) << threads << " threads";
    for (PointId g = 0; g < 300; ++g) {
      for (int c = 0; c < 3; ++c) ASSERT_EQ(distinct.data()(g, c), base(order[g], c)) << "group " << g;
      ASSERT_EQ(distinct.original_count(std::vector<PointId>{g}), copies[order[g]]) << "group " << g;
    }
  }
}

TEST(DistinctPoints, GroupsEqualVectorsWithSignedZerosEqual) {
  // Rows: 0 = (0, 1), 1 = (1, 0), 2 = (-0, 1) equal to row 0, 3 = (0, 1), 4 = (1, -0) equal to 1,
  // 5 = (2, 2) alone. A max column is negated first: its 0.0 becomes -0.0.
  const std::vector<float> values{0.0f, 1.0f, 1.0f, 0.0f, -0.0f, 1.0f, 0.0f, 1.0f, 1.0f, -0.0f, 2.0f, 2.0f};
  for (const auto& prefer :
       {std::vector<Preference>{}, std::vector<Preference>{Preference::max, Preference::min}}) {
    const Dataset data(6, 2, values, prefer);
    const DistinctPoints distinct(data);
    ASSERT_TRUE(distinct.has_duplicates());
    const Dataset& rep = distinct.data();
    ASSERT_EQ(rep.size(), 3u);
    EXPECT_EQ(rep.preferences(), (std::vector<Preference>{Preference::min, Preference::min}));
    for (int c = 0; c < 2; ++c) {  // representatives: rows 0, 1 and 5 in minimisation form
      EXPECT_EQ(rep(0, c), data(0, c));
      EXPECT_EQ(rep(1, c), data(1, c));
      EXPECT_EQ(rep(2, c), data(5, c));
    }
    EXPECT_EQ(distinct.original_count(std::vector<PointId>{0}), 3u);
    EXPECT_EQ(distinct.original_count(std::vector<PointId>{1, 2}), 3u);

    // A cube over the 3 representatives (d = 2: subspaces 1, 2, 3): 0 in S1 and S3, 1 in S2 and
    // S3, 2 nowhere.
    std::vector<HashCubePart> parts(1, HashCubePart(2, 2));
    parts[0].insert(0, std::vector<Word>{~Word{0b101}});
    parts[0].insert(1, std::vector<Word>{~Word{0b110}});
    const HashCube small = HashCube::from_parts(2, 3, 2, std::move(parts));
    testing::ThreadTeam two(2);
    const HashCube cube = distinct.expand(small, two);
    EXPECT_EQ(cube.point_count(), 6u);
    EXPECT_EQ(cube.skyline(1), (std::vector<PointId>{0, 2, 3}));
    EXPECT_EQ(cube.skyline(2), (std::vector<PointId>{1, 4}));
    EXPECT_EQ(cube.skyline(3), (std::vector<PointId>{0, 1, 2, 3, 4}));
    EXPECT_TRUE(cube.membership(5).empty());
    EXPECT_EQ(cube.stored_ids(), 5u);
  }
}

TEST(DistinctPoints, ExpandedCubeEqualsCubeBuiltPerPoint) {
  // Random bitmaps per group; the expansion must equal inserting every member with its group's
  // words, for every thread count. In the odd words only every eleventh group is in some skyline,
  // so those words hold few of the points (expanded by sorting) and the even ones most (by a pass
  // over every id).
  const Dataset data = testing::random_dataset(3000, 3, 3, 11, 30);
  const DistinctPoints distinct(data);
  ASSERT_TRUE(distinct.has_duplicates());
  const int d = 7;
  const std::size_t groups = distinct.data().size();
  testing::SplitMix64 rng(5);
  std::vector<std::vector<Word>> words(groups, std::vector<Word>(words_for(d)));
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t k = 0; k < words[g].size(); ++k)
      words[g][k] = k % 2 == 1 && g % 11 != 0 ? ~Word{0}
                                              : static_cast<Word>(rng.next()) | static_cast<Word>(rng.next());
  std::vector<HashCubePart> small_parts(1, HashCubePart(d, 5));
  for (std::size_t g = 0; g < groups; ++g) small_parts[0].insert(static_cast<PointId>(g), words[g]);
  const HashCube small = HashCube::from_parts(d, groups, 5, std::move(small_parts));

  std::vector<HashCubePart> parts(1, HashCubePart(d, 5));  // each point with its group's words
  for (PointId id = 0; id < data.size(); ++id) {
    std::size_t g = 0;
    while (!(distinct.data()(static_cast<PointId>(g), 0) == data(id, 0) &&
             distinct.data()(static_cast<PointId>(g), 1) == data(id, 1) &&
             distinct.data()(static_cast<PointId>(g), 2) == data(id, 2)))
      ++g;
    parts[0].insert(id, words[g]);
  }
  const HashCube expected = HashCube::from_parts(d, data.size(), 5, std::move(parts));
  for (int threads : {1, 2, 5}) {
    testing::ThreadTeam team(threads);
    EXPECT_EQ(distinct.expand(small, team), expected) << threads << " threads";
  }
}

TEST(DistinctPoints, WithGroupsRejectsMismatchedGroups) {
  const HashCube cube(3, 4, 3);
  const std::vector<std::uint32_t> offsets{0, 1, 2};
  const std::vector<PointId> members{0, 1};
  EXPECT_THROW((void)cube.with_groups(10, offsets, members), Error);
}

TEST(StoredPositions, OnlyWordsOfLevelsAsked) {
  EXPECT_EQ(stored_positions(5, 5), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(stored_positions(7, 7).size(), words_for(7));
  // d = 20, level <= 2: 210 subspaces in far fewer than the cube's 32768 words.
  const std::vector<std::uint32_t> p = stored_positions(20, 2);
  EXPECT_LE(p.size(), 210u);
  EXPECT_TRUE(std::is_sorted(p.begin(), p.end()));
  for (std::size_t w = 0; w < words_for(20); ++w)
    EXPECT_EQ(std::binary_search(p.begin(), p.end(), static_cast<std::uint32_t>(w)),
              valid_bits(20, 2, w) != 0)
        << "word " << w;
}

TEST(StoredPositions, InsertingOnlyThemGivesTheSameCube) {
  const int d = 12;
  const int max_level = 3;
  const std::vector<std::uint32_t> positions = stored_positions(d, max_level);
  testing::SplitMix64 rng(9);
  const std::size_t n = 700;
  std::vector<Word> full(n * words_for(d));
  for (Word& x : full) x = static_cast<Word>(rng.next() & rng.next());
  std::vector<Word> sparse;
  std::vector<PointId> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = static_cast<PointId>(i);
    for (const std::uint32_t w : positions) sparse.push_back(full[i * words_for(d) + w]);
  }
  std::vector<HashCubePart> a(1, HashCubePart(d, max_level));
  std::vector<HashCubePart> b(1, HashCubePart(d, max_level));
  a[0].insert_batch(ids, full);
  testing::ThreadTeam two(2);
  b[0].insert_batch(ids, positions, sparse, two);
  EXPECT_EQ(HashCube::from_parts(d, n, max_level, std::move(a)),
            HashCube::from_parts(d, n, max_level, std::move(b)));
  std::vector<HashCubePart> c(1, HashCubePart(d, max_level));
  EXPECT_THROW(c[0].insert_batch(ids, positions, full), Error);
}

}  // namespace
}  // namespace sextant::skycube
