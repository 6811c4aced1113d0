#include "cpu/skycube/reference_skycube.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "templates/skycube/lattice.hpp"
#include "testing/brute_force_skycube.hpp"
#include "testing/random_data.hpp"
#include "testing/skycube_conformance.hpp"
#include "tests/support/test_directory.hpp"

namespace sextant::skycube {
namespace {

using testing::brute_force_lattice;
using testing::brute_force_skyline;

std::string ids_text(const std::vector<PointId>& ids) {
  std::ostringstream out;
  out << '{';
  for (std::size_t i = 0; i < ids.size(); ++i) out << (i == 0 ? "" : " ") << ids[i];
  out << '}';
  return out.str();
}

// Compares subspace by subspace so a failure names the mask and both id lists.
void expect_same_lattice(const Lattice& actual, const Lattice& expected, const std::string& context) {
  ASSERT_EQ(actual.dims(), expected.dims()) << context;
  ASSERT_EQ(actual.point_count(), expected.point_count()) << context;
  ASSERT_EQ(actual.max_level(), expected.max_level()) << context;
  int failures = 0;
  for (Mask m = 1; m <= full_mask(expected.dims()) && failures < 5; ++m) {
    if (actual.skyline(m) == expected.skyline(m)) continue;
    ++failures;
    ADD_FAILURE() << context << ": subspace " << m << " (level " << level(m) << "): reference "
                  << ids_text(actual.skyline(m)) << ", brute force " << ids_text(expected.skyline(m));
  }
}

void expect_matches_brute_force(const Dataset& data, int max_level, const std::string& context) {
  const HashCube cube = reference_skycube(data, max_level);
  EXPECT_EQ(cube.dims(), data.dims()) << context;
  EXPECT_EQ(cube.point_count(), data.size()) << context;
  EXPECT_EQ(cube.max_level(), max_level) << context;
  expect_same_lattice(Lattice::from_hash_cube(cube), brute_force_lattice(data, max_level), context);
}

TEST(ReferenceSkycube, MatchesBruteForceOnTiesAndDuplicates) {
  for (int d = 1; d <= 8; ++d) {
    for (std::size_t n : {1u, 2u, 3u, 8u, 25u, 60u}) {
      for (int levels : {2, 3, 4, 0}) {  // 0: almost no ties
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
          const std::uint64_t s = seed * 7919 + n * 31 + static_cast<std::uint64_t>(d * 5 + levels);
          const Dataset data = testing::random_dataset(n, d, levels, s, 25);
          std::vector<int> max_levels = {d, (d + 1) / 2, 1};  // full, half and level 1 only
          max_levels.erase(std::unique(max_levels.begin(), max_levels.end()), max_levels.end());
          for (int max_level : max_levels)
            expect_matches_brute_force(
                data, max_level,
                "d=" + std::to_string(d) + " n=" + std::to_string(n) + " levels=" + std::to_string(levels) +
                    " seed=" + std::to_string(s) + " max_level=" + std::to_string(max_level));
        }
      }
    }
  }
}

TEST(ReferenceSkycube, MatchesBruteForceAboveTenColumns) {
  // Above 10 columns the reference deduplicates relationships in a hash set, not a bit table.
  for (int d : {11, 12}) {
    for (int levels : {2, 3}) {
      const auto seed = static_cast<std::uint64_t>(d * 100 + levels);
      const Dataset data = testing::random_dataset(30, d, levels, seed, 20);
      for (int max_level : {d, 3})
        expect_matches_brute_force(data, max_level,
                                   "d=" + std::to_string(d) + " n=30 levels=" + std::to_string(levels) +
                                       " seed=" + std::to_string(seed) +
                                       " max_level=" + std::to_string(max_level));
    }
  }
}

TEST(ReferenceSkycube, DuplicatesNeverDominateEachOther) {
  // Five copies of one point: every copy is in every skyline.
  const std::vector<float> same(5 * 3, 1.5f);
  const HashCube cube = reference_skycube(Dataset(5, 3, same));
  for (Mask m = 1; m <= 7; ++m) EXPECT_EQ(cube.skyline(m), (std::vector<PointId>{0, 1, 2, 3, 4})) << m;
  // Two copies of a dominated point both leave; two copies of the best both stay.
  const std::vector<float> values = {2, 2, 1, 1, 2, 2, 1, 1};
  const HashCube pairs = reference_skycube(Dataset(4, 2, values));
  for (Mask m = 1; m <= 3; ++m) EXPECT_EQ(pairs.skyline(m), (std::vector<PointId>{1, 3})) << m;
}

TEST(ReferenceSkycube, TiesDominateOnlyWhereSomethingIsStrictlyBetter) {
  // p0 = (1, 1), p1 = (1, 2): p0 dominates p1 in {1} and {0,1} but not in {0} (a tie there).
  const std::vector<float> values = {1, 1, 1, 2};
  const HashCube cube = reference_skycube(Dataset(2, 2, values));
  EXPECT_EQ(cube.skyline(1), (std::vector<PointId>{0, 1}));
  EXPECT_EQ(cube.skyline(2), (std::vector<PointId>{0}));
  EXPECT_EQ(cube.skyline(3), (std::vector<PointId>{0}));
  // Two competitors of p with the same le mask but different ties: deduplicating the
  // relationships by le alone would keep only one of them and leave p in a wrong skyline.
  // clang-format off
  const std::vector<float> tied = {5, 5, 5,  // p
                                   4, 5, 5,  // le = 111, eq = 110: dominates p where column 0 is used
                                   5, 4, 5}; // le = 111, eq = 101: dominates p where column 1 is used
  // clang-format on
  const HashCube t = reference_skycube(Dataset(3, 3, tied));
  EXPECT_EQ(t.membership(0), (std::vector<Mask>{4})) << "p survives only in the subspace of column 2 alone";
}

TEST(ReferenceSkycube, TableOneOfThePaper) {
  // Table 1 of paper 004. The paper writes p = (p[d-1], ..., p[0]) and calls subspace 3
  // {Duration, Arrival}, and B_{f0<=f1} = 100: so column 0 = arrival (hh.mm as a decimal, which
  // orders times correctly), column 1 = duration (hours), column 2 = price ($). All minimised.
  // clang-format off
  const std::vector<float> flights = {12.20f, 17, 120,   // f0
                                      9.00f,  12, 148,   // f1
                                      8.20f,  13, 169,   // f2
                                      21.25f, 3,  186,   // f3
                                      21.25f, 5,  196};  // f4
  // clang-format on
  const Dataset data(5, 3, flights, {}, "table1");
  const HashCube cube = reference_skycube(data);

  // Derived by hand from the semantics (smaller is better):
  //   {arrival}: f2 arrives first. {duration}: f3 is quickest. {price}: f0 is cheapest.
  //   {arrival, duration}: f0 loses to f1 (and f2), f4 to f3 (tie on arrival, longer): the
  //     paper's S_3 = {f1, f2, f3} of section 2.2.
  //   {arrival, price}: f3 and f4 lose to f0. {duration, price}: f2 loses to f1, f4 to f3.
  //   {all}: only f4 is dominated (by f3), as the caption of Table 1 says.
  EXPECT_EQ(cube.skyline(1), (std::vector<PointId>{2}));
  EXPECT_EQ(cube.skyline(2), (std::vector<PointId>{3}));
  EXPECT_EQ(cube.skyline(3), (std::vector<PointId>{1, 2, 3}));
  EXPECT_EQ(cube.skyline(4), (std::vector<PointId>{0}));
  EXPECT_EQ(cube.skyline(5), (std::vector<PointId>{0, 1, 2}));
  EXPECT_EQ(cube.skyline(6), (std::vector<PointId>{0, 1, 3}));
  EXPECT_EQ(cube.skyline(7), (std::vector<PointId>{0, 1, 2, 3}));
  // Section 2.1: B_{f1 in S} = 1110100, i.e. f1 is in the skylines of 7, 6, 5 and 3.
  EXPECT_EQ(cube.membership(1), (std::vector<Mask>{3, 5, 6, 7}));
  EXPECT_TRUE(cube.membership(4).empty()) << "f4 is dominated everywhere, so it is not stored";
  EXPECT_EQ(cube.stored_ids(), 4u);
  // Appendix B.1 says S_4 is the concatenation of the lists at keys 9, 10 and 11 "on which bit
  // 3 is set". With 4-bit words those keys are f3 (1001), f2 (1010) and f1 (1011): the points
  // dominated in subspace 4. The semantics (bit = 1 means dominated) win: S_4 = {f0}, key 0111.
  EXPECT_EQ(cube.skyline(4), (std::vector<PointId>{0}));
  // The partial skycube keeps levels 1 and 2 only.
  const HashCube partial = reference_skycube(data, 2);
  EXPECT_FALSE(partial.computed(7));
  EXPECT_EQ(partial.skyline(6), (std::vector<PointId>{0, 1, 3}));
  EXPECT_EQ(partial.membership(1), (std::vector<Mask>{3, 5, 6}));
}

TEST(ReferenceSkycube, SameResultForAnyThreadCount) {
  const Dataset data = testing::random_dataset(200, 6, 3, 42);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const HashCube one = reference_skycube(data);
  omp_set_num_threads(3);
  const HashCube three = reference_skycube(data);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, three);
  EXPECT_EQ(one, reference_skycube(data));
}

TEST(ReferenceSkycube, EmptyDataset) {
  const HashCube cube = reference_skycube(Dataset(0, 4, {}));
  EXPECT_EQ(cube.point_count(), 0u);
  for (Mask m = 1; m <= 15; ++m) EXPECT_TRUE(cube.skyline(m).empty());
}

TEST(ReferenceSkycube, RejectsTooManyColumnsAndBadLevels) {
  const Dataset wide(2, 21, std::vector<float>(2 * 21, 0.0f));
  try {
    (void)reference_skycube(wide);
    ADD_FAILURE() << "d = 21 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("d <= 20 supported"), std::string::npos) << e.what();
  }
  const Dataset data = testing::random_dataset(4, 3, 2, 1);
  EXPECT_THROW((void)reference_skycube(data, 0), Error);
  EXPECT_THROW((void)reference_skycube(data, 4), Error);
}

// data/nba-8-17264.csv: 8 columns, no header, a trailing comma on every line. A tiny local
// parser, so this test does not depend on datagen/.
Dataset read_nba() {
  const std::string path = std::string(SEXTANT_SOURCE_DIR) + "/data/nba-8-17264.csv";
  std::ifstream in(path);
  if (!in) throw Error::io(path, "cannot open");
  std::vector<float> values;
  std::size_t rows = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::size_t pos = 0;
    int columns = 0;
    while (pos < line.size() && line[pos] != '\r') {
      const std::size_t comma = std::min(line.find(',', pos), line.size());
      float v = 0;
      const auto [end, ec] = std::from_chars(line.data() + pos, line.data() + comma, v);
      if (ec != std::errc{} || end != line.data() + comma)
        throw Error::in_file(path, rows + 1, pos + 1, "bad number");
      values.push_back(v);
      ++columns;
      pos = comma + 1;
    }
    if (columns != 8) throw Error::in_file(path, rows + 1, 0, "expected 8 columns");
    ++rows;
  }
  return Dataset(rows, 8, values, {}, path);
}

TEST(ReferenceSkycube, NbaFullSpaceSkylineHas1796Points) {
  const Dataset data = read_nba();
  ASSERT_EQ(data.size(), 17264u);
  const auto start = std::chrono::steady_clock::now();
  const HashCube cube = reference_skycube(data);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "reference skycube of NBA (17264 x 8, " << omp_get_max_threads() << " threads): " << seconds
            << " s, " << cube.stored_ids() << " ids stored, " << cube.bytes() << " bytes\n";

  const std::vector<PointId> full = cube.skyline(0xFF);
  EXPECT_EQ(full.size(), 1796u);
  EXPECT_EQ(ids_text(full), ids_text(brute_force_skyline(data, 0xFF)));
  // A few lower subspaces too, one per level shape.
  for (Mask m : {0x01u, 0x80u, 0x03u, 0x41u, 0x0Fu, 0xF0u, 0x7Fu})
    EXPECT_EQ(ids_text(cube.skyline(m)), ids_text(brute_force_skyline(data, m))) << "subspace " << m;
}

// The reference kept for a test run (scripts/test.sh): one file per data and level, read back by
// the next caller; other data gets its own file; a damaged file is an error, not a wrong cube.
TEST(SharedReferenceCube, IsKeptOncePerDataAndLevelAndReadBack) {
  namespace fs = std::filesystem;
  const fs::path dir = sextant::testing::test_directory("reference-cubes");
  fs::remove_all(dir);
  fs::create_directories(dir);
  ASSERT_EQ(::setenv("SEXTANT_TEST_REFERENCE_DIR", dir.c_str(), 1), 0);
  const auto files = [&] {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
  };
  const Dataset data = testing::random_dataset(300, 4, 3, 7);
  const Dataset other = testing::random_dataset(300, 4, 3, 8);
  EXPECT_EQ(testing::shared_reference_cube(data, "ties n=300", 4), reference_skycube(data, 4));
  ASSERT_EQ(files(), 1u);
  const fs::path kept = fs::directory_iterator(dir)->path();
  // Another level and other values under the same name: files of their own.
  EXPECT_EQ(testing::shared_reference_cube(data, "ties n=300", 2), reference_skycube(data, 2));
  EXPECT_EQ(testing::shared_reference_cube(other, "ties n=300", 4), reference_skycube(other, 4));
  EXPECT_EQ(files(), 3u);
  // Read back, not computed again: the kept file is what comes out.
  {
    std::ofstream out(kept, std::ios::binary | std::ios::trunc);
    reference_skycube(other, 4).save(out);
  }
  EXPECT_EQ(testing::shared_reference_cube(data, "ties n=300", 4), reference_skycube(other, 4));
  {
    std::ofstream out(kept, std::ios::binary | std::ios::trunc);
    out << "SXHC but not a cube";
  }
  try {
    (void)testing::shared_reference_cube(data, "ties n=300", 4);
    ADD_FAILURE() << "a damaged file was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kept.string()), std::string::npos) << e.what();
  }
  ASSERT_EQ(::unsetenv("SEXTANT_TEST_REFERENCE_DIR"), 0);
  EXPECT_EQ(testing::shared_reference_cube(data, "ties n=300", 4), reference_skycube(data, 4));
  EXPECT_EQ(files(), 3u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sextant::skycube
