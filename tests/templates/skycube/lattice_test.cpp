#include "templates/skycube/lattice.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support/thread_team.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/skycube_text.hpp"
#include "testing/random_data.hpp"

namespace sextant::skycube {
namespace {

// A random lattice: every computed subspace gets a random ascending subset of the ids.
Lattice random_lattice(int d, std::size_t n, int max_level, std::uint64_t seed) {
  testing::SplitMix64 rng(seed);
  Lattice lattice(d, n, max_level);
  for (Mask m = 1; m <= full_mask(d); ++m) {
    if (level(m) > max_level) continue;
    const std::uint64_t density = rng.below(4);  // 0: empty skylines happen too
    for (std::size_t id = 0; id < n; ++id)
      if (rng.below(4) < density) lattice.skyline(m).push_back(static_cast<PointId>(id));
  }
  return lattice;
}

// Table 1 of paper 004, by hand (see hash_cube_test.cpp).
Lattice flights_lattice() {
  Lattice lattice(3, 5, 3);
  lattice.skyline(1) = {2};
  lattice.skyline(2) = {3};
  lattice.skyline(3) = {1, 2, 3};
  lattice.skyline(4) = {0};
  lattice.skyline(5) = {0, 1, 2};
  lattice.skyline(6) = {0, 1, 3};
  lattice.skyline(7) = {0, 1, 2, 3};
  return lattice;
}

TEST(Lattice, ShapeIsValidated) {
  EXPECT_THROW(Lattice(0, 3, 1), Error);
  EXPECT_THROW(Lattice(21, 3, 1), Error);
  EXPECT_THROW(Lattice(3, 3, 0), Error);
  EXPECT_THROW(Lattice(3, 3, 4), Error);
  const Lattice lattice(4, 9, 2);
  EXPECT_EQ(lattice.dims(), 4);
  EXPECT_EQ(lattice.point_count(), 9u);
  EXPECT_EQ(lattice.max_level(), 2);
  for (Mask m = 1; m <= 15; ++m) EXPECT_TRUE(lattice.skyline(m).empty());
}

TEST(Lattice, RoundTripsThroughHashCube) {
  for (int d = 1; d <= 7; ++d) {
    for (int max_level : {1, (d + 1) / 2, d}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const std::size_t n = static_cast<std::size_t>(seed * 11 % 37);
        const Lattice lattice = random_lattice(d, n, max_level, seed * 1000 + static_cast<std::uint64_t>(d));
        const HashCube cube = lattice.to_hash_cube();
        SCOPED_TRACE("d=" + std::to_string(d) + " max_level=" + std::to_string(max_level) +
                     " seed=" + std::to_string(seed));
        for (Mask m = 1; m <= full_mask(d); ++m)
          if (level(m) <= max_level) {
            ASSERT_EQ(cube.skyline(m), lattice.skyline(m)) << "mask " << m;
          }
        const Lattice back = Lattice::from_hash_cube(cube);
        EXPECT_EQ(back, lattice);
        EXPECT_EQ(back.to_hash_cube(), cube);
      }
    }
  }
}

TEST(Lattice, TableOneHashCube) {
  const HashCube cube = flights_lattice().to_hash_cube();
  EXPECT_EQ(cube.stored_ids(), 4u) << "f4 is in no skyline, so it is not stored";
  EXPECT_EQ(cube.membership(1), (std::vector<Mask>{3, 5, 6, 7}));
  EXPECT_EQ(Lattice::from_hash_cube(cube), flights_lattice());
}

TEST(Lattice, ToHashCubeRejectsBadContents) {
  Lattice lattice(3, 5, 2);
  lattice.skyline(3) = {5};
  EXPECT_THROW((void)lattice.to_hash_cube(), Error);
  lattice.skyline(3) = {4};
  EXPECT_NO_THROW((void)lattice.to_hash_cube());
  lattice.skyline(7) = {1};  // above max_level: would be silently lost
  EXPECT_THROW((void)lattice.to_hash_cube(), Error);
}

// ---- skycube text format ---------------------------------------------------------------------

std::string to_text(const HashCube& cube) {
  std::ostringstream out;
  write_skycube_text(out, cube);
  return out.str();
}

Lattice from_text(const std::string& text) {
  std::istringstream in(text);
  return read_skycube_text(in, "cube.txt");
}

TEST(SkycubeText, WritesTheDocumentedFormat) {
  EXPECT_EQ(to_text(flights_lattice().to_hash_cube()),
            "# sextant skycube d=3 n=5 max_level=3\n"
            "1 1 2\n"
            "2 1 3\n"
            "3 3 1 2 3\n"
            "4 1 0\n"
            "5 3 0 1 2\n"
            "6 3 0 1 3\n"
            "7 4 0 1 2 3\n");
  Lattice partial(3, 2, 2);
  partial.skyline(1) = {0, 1};
  partial.skyline(6) = {1};
  EXPECT_EQ(to_text(partial.to_hash_cube()),
            "# sextant skycube d=3 n=2 max_level=2\n"
            "1 2 0 1\n"
            "2 0\n"
            "3 0\n"
            "4 0\n"
            "5 0\n"
            "6 1 1\n");
}

TEST(SkycubeText, RoundTrips) {
  for (int d : {1, 4, 6}) {
    for (int max_level : {1, d}) {
      const Lattice lattice = random_lattice(d, 30, max_level, static_cast<std::uint64_t>(d * 7 + max_level));
      EXPECT_EQ(from_text(to_text(lattice.to_hash_cube())), lattice)
          << "d=" << d << " max_level=" << max_level;
    }
  }
  // Comments, blank lines and CRLF are accepted.
  const Lattice lattice =
      from_text("# a comment\n# sextant skycube d=2 n=3 max_level=2\r\n\n1 2 0 2\n# x\n2 0\n3 1 1\n");
  EXPECT_EQ(lattice.skyline(1), (std::vector<PointId>{0, 2}));
  EXPECT_TRUE(lattice.skyline(2).empty());
  EXPECT_EQ(lattice.skyline(3), (std::vector<PointId>{1}));
}

// The text is formatted in blocks of masks on the team's workers: the same bytes for any team,
// including d where the last block is partial and partial cubes that skip masks.
TEST(SkycubeText, SameTextOnAnyTeam) {
  for (int d : {3, 7, 11}) {  // 1, 4 and 64 blocks: several rounds
    for (int max_level : {2, d}) {
      const HashCube cube =
          random_lattice(d, 40, max_level, static_cast<std::uint64_t>(d * 11 + max_level)).to_hash_cube();
      const std::string serial = to_text(cube);
      EXPECT_EQ(from_text(serial).to_hash_cube(), cube);
      for (int workers : {2, 3, 8}) {
        testing::ThreadTeam team(workers);
        std::ostringstream out;
        write_skycube_text(out, cube, team);
        EXPECT_EQ(out.str(), serial) << "d=" << d << " max_level=" << max_level << " workers=" << workers;
      }
    }
  }
}

void expect_parse_error(const std::string& text, const std::string& location, const std::string& needle) {
  try {
    (void)from_text(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << message;
    EXPECT_EQ(message.rfind(location, 0), 0u) << message;
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  }
}

TEST(SkycubeText, ErrorsNameTheLine) {
  const std::string header = "# sextant skycube d=2 n=3 max_level=2\n";
  expect_parse_error("", "cube.txt", "no skycube header");
  expect_parse_error("1 0\n", "cube.txt:1:", "before the header");
  expect_parse_error("# sextant skycube d=21 n=3 max_level=2\n", "cube.txt:1:", "d=21");
  expect_parse_error("# sextant skycube d=2 n=3 max_level=3\n", "cube.txt:1:", "max_level=3");
  expect_parse_error("# sextant skycube d=2 n=3\n", "cube.txt:1:", "incomplete header");
  expect_parse_error(header + "1 0\n2 0\n", "cube.txt:3:", "before subspace 3");
  expect_parse_error(header + "1 0\n3 0\n", "cube.txt:3:", "subspace 2 is missing");
  expect_parse_error(header + "1 0\n2 0\n3 0\n3 0\n", "cube.txt:5:", "strictly ascending");
  expect_parse_error(header + "1 0\n2 0\n4 0\n", "cube.txt:4:", "not a computed subspace");
  expect_parse_error(header + "x 0\n", "cube.txt:2:", "bad subspace mask");
  expect_parse_error(header + "1 2 0\n", "cube.txt:2:", "says 2 ids but lists 1");
  expect_parse_error(header + "1 1 3\n", "cube.txt:2:", "out of range");
  expect_parse_error(header + "1 2 1 0\n", "cube.txt:2:", "not strictly ascending");
  expect_parse_error(header + "1 1 -1\n", "cube.txt:2:", "bad point id");
  expect_parse_error("# sextant skycube d=1 n=1 max_level=1\n1 0\n# sextant skycube d=1 n=1 max_level=1\n",
                     "cube.txt:3:", "second skycube header");
  expect_parse_error("# sextant skycube d=3 n=3 max_level=1\n1 0\n2 0\n3 0\n",
                     "cube.txt:4:", "not a computed subspace");
}

}  // namespace
}  // namespace sextant::skycube
