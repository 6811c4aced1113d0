#include "templates/skycube/hash_cube.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support/host_kept_words.hpp"
#include "support/thread_team.hpp"
#include "testing/random_data.hpp"

namespace sextant::skycube {
namespace {

using Bitmaps = std::vector<std::vector<Word>>;  // per point: its "dominated in" words

constexpr Word all_ones = ~Word{0};

// Table 1 of paper 004 (columns: 0 = arrival, 1 = duration, 2 = price), its bitmaps derived by
// hand (bit m-1 = dominated in m): S1={f2} S2={f3} S3={f1,f2,f3} S4={f0} S5={f0,f1,f2}
// S6={f0,f1,f3} S7={f0,f1,f2,f3}. f4's bits are all set, and bits 7.. are left 0 on purpose:
// the cube must force them to 1, so f4 is not stored at all.
const Bitmaps flights = {{0x07}, {0x0B}, {0x2A}, {0x19}, {0x7F}};

HashCube build(int d, int max_level, const Bitmaps& bitmaps, std::size_t part_count = 1) {
  std::vector<HashCubePart> parts(part_count, HashCubePart(d, max_level));
  for (std::size_t id = 0; id < bitmaps.size(); ++id)
    parts[(id * 7 + 3) % part_count].insert(static_cast<PointId>(id), bitmaps[id]);
  return HashCube::from_parts(d, bitmaps.size(), max_level, std::move(parts));
}

bool dominated_bit(const std::vector<Word>& bitmap, Mask m) {
  return ((bitmap[bit_of(m) / 32] >> (bit_of(m) % 32)) & 1u) != 0;
}

// Expected skyline / membership straight from the bitmaps.
std::vector<PointId> expected_skyline(const Bitmaps& bitmaps, Mask m) {
  std::vector<PointId> out;
  for (std::size_t id = 0; id < bitmaps.size(); ++id)
    if (!dominated_bit(bitmaps[id], m)) out.push_back(static_cast<PointId>(id));
  return out;
}

std::vector<Mask> expected_membership(const std::vector<Word>& bitmap, int d, int max_level) {
  std::vector<Mask> out;
  for (Mask m = 1; m <= full_mask(d); ++m)
    if (level(m) <= max_level && !dominated_bit(bitmap, m)) out.push_back(m);
  return out;
}

// Random bitmaps: some points dominated everywhere, some words all zero, the rest random.
Bitmaps random_bitmaps(std::size_t n, int d, std::uint64_t seed) {
  testing::SplitMix64 rng(seed);
  Bitmaps out(n, std::vector<Word>(words_for(d)));
  for (auto& bitmap : out) {
    const std::uint64_t kind = rng.below(5);
    for (Word& w : bitmap) {
      const auto r = static_cast<Word>(rng.next());
      w = kind == 0 ? all_ones : kind == 1 ? Word{0} : kind == 2 ? (r | static_cast<Word>(rng.next())) : r;
    }
    if (kind == 4) bitmap[0] = 0x5u;  // a shared key, so keys hold several ids
  }
  return out;
}

template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no Error thrown>";
}

TEST(HashCube, WordsAndValidBits) {
  EXPECT_EQ(words_for(1), 1u);
  EXPECT_EQ(words_for(5), 1u);  // 31 subspaces
  EXPECT_EQ(words_for(6), 2u);  // 63 subspaces
  EXPECT_EQ(words_for(7), 4u);
  EXPECT_EQ(words_for(20), 32768u);
  EXPECT_EQ(valid_bits(1, 1, 0), 0x1u);
  EXPECT_EQ(valid_bits(3, 3, 0), 0x7Fu);
  EXPECT_EQ(valid_bits(5, 5, 0), 0x7FFFFFFFu);
  EXPECT_EQ(valid_bits(6, 6, 0), 0xFFFFFFFFu);
  EXPECT_EQ(valid_bits(6, 6, 1), 0x7FFFFFFFu);  // masks 33..63
  EXPECT_EQ(valid_bits(7, 7, 3), 0x7FFFFFFFu);  // masks 97..127
  EXPECT_EQ(valid_bits(3, 1, 0), 0x0Bu);        // masks 1, 2, 4 -> bits 0, 1, 3
  EXPECT_EQ(valid_bits(3, 2, 0), 0x3Fu);        // all but mask 7
  EXPECT_EQ(valid_bits(7, 2, 3), 0u);           // masks 97..127 all have >= 3 columns
}

TEST(HashCube, HandMadeBitmapsOfTableOne) {
  for (std::size_t part_count : {1u, 2u, 5u}) {
    const HashCube cube = build(3, 3, flights, part_count);
    EXPECT_EQ(cube.dims(), 3);
    EXPECT_EQ(cube.point_count(), 5u);
    EXPECT_EQ(cube.stored_ids(), 4u) << "f4 is dominated everywhere: not stored";
    EXPECT_GT(cube.bytes(), 0u);
    EXPECT_EQ(cube.skyline(1), (std::vector<PointId>{2}));
    EXPECT_EQ(cube.skyline(2), (std::vector<PointId>{3}));
    EXPECT_EQ(cube.skyline(3), (std::vector<PointId>{1, 2, 3}));
    EXPECT_EQ(cube.skyline(4), (std::vector<PointId>{0}));
    EXPECT_EQ(cube.skyline(5), (std::vector<PointId>{0, 1, 2}));
    EXPECT_EQ(cube.skyline(6), (std::vector<PointId>{0, 1, 3}));
    EXPECT_EQ(cube.skyline(7), (std::vector<PointId>{0, 1, 2, 3}));
    // The paper's B_{f1 in S} = 1110100: subspaces 3, 5, 6, 7.
    EXPECT_EQ(cube.membership(1), (std::vector<Mask>{3, 5, 6, 7}));
    EXPECT_EQ(cube.membership(4), std::vector<Mask>{});
    EXPECT_EQ(cube, build(3, 3, flights)) << "the layout must not depend on how points were split into parts";
  }
}

TEST(HashCube, AllOnesWordsAreNotStored) {
  // d = 6: two words. Point 0 dominated in all of word 0, point 1 in all of word 1 (its
  // 32nd bit, a subspace that does not exist, left 0), point 2 nowhere, point 3 everywhere.
  const Bitmaps bitmaps = {{all_ones, 0x0u}, {0x0u, 0x7FFFFFFFu}, {0x0u, 0x0u}, {all_ones, all_ones}};
  const HashCube cube = build(6, 6, bitmaps);
  EXPECT_EQ(cube.stored_ids(), 4u);  // point 0 once, point 1 once, point 2 twice
  EXPECT_EQ(cube.skyline(1), (std::vector<PointId>{1, 2}));
  EXPECT_EQ(cube.skyline(32), (std::vector<PointId>{1, 2}));
  EXPECT_EQ(cube.skyline(33), (std::vector<PointId>{0, 2}));
  EXPECT_EQ(cube.skyline(63), (std::vector<PointId>{0, 2}));
  EXPECT_TRUE(cube.membership(3).empty());
  EXPECT_EQ(cube.membership(2).size(), 63u);
}

TEST(HashCube, EmptyCubeDominatesEverything) {
  const HashCube cube(4, 10, 4);
  EXPECT_EQ(cube.stored_ids(), 0u);
  EXPECT_GT(cube.bytes(), 0u);
  for (Mask m = 1; m <= 15; ++m) EXPECT_TRUE(cube.skyline(m).empty());
  EXPECT_TRUE(cube.membership(9).empty());
  EXPECT_EQ(cube, HashCube::from_parts(4, 10, 4, {}));
}

TEST(HashCube, RandomBitmapsMatchEveryQueryForAllSmallDims) {
  for (int d = 1; d <= 7; ++d) {
    for (int max_level = 1; max_level <= d; ++max_level) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const std::size_t n = 1 + static_cast<std::size_t>(seed * 13 % 40);
        const Bitmaps bitmaps = random_bitmaps(n, d, seed * 100 + static_cast<std::uint64_t>(d));
        const HashCube cube = build(d, max_level, bitmaps, 1 + seed % 3);
        SCOPED_TRACE("d=" + std::to_string(d) + " max_level=" + std::to_string(max_level) +
                     " seed=" + std::to_string(seed));
        std::size_t stored = 0;
        for (const auto& bitmap : bitmaps)
          for (std::size_t w = 0; w < bitmap.size(); ++w)
            stored += (bitmap[w] | ~valid_bits(d, max_level, w)) != all_ones ? 1 : 0;
        EXPECT_EQ(cube.stored_ids(), stored);
        for (Mask m = 1; m <= full_mask(d); ++m) {
          ASSERT_EQ(cube.computed(m), level(m) <= max_level) << "mask " << m;
          if (cube.computed(m)) {
            EXPECT_EQ(cube.skyline(m), expected_skyline(bitmaps, m)) << "mask " << m;
          }
        }
        for (std::size_t id = 0; id < n; ++id)
          EXPECT_EQ(cube.membership(static_cast<PointId>(id)), expected_membership(bitmaps[id], d, max_level))
              << "id " << id;
      }
    }
  }
}

// Batches of every size (0 included), over word counts below, at and past a cache line of words,
// inserted by 1-4 threads, answer every query exactly like the bitmaps; a failed batch's ids can be
// erased again.
TEST(HashCube, BatchInsertsMatchTheBitmaps) {
  for (int d : {1, 4, 5, 6, 9, 10, 12}) {
    for (int max_level : {1, d}) {
      SCOPED_TRACE("d=" + std::to_string(d) + " max_level=" + std::to_string(max_level));
      const std::size_t n = 300;
      const Bitmaps bitmaps = random_bitmaps(n, d, 7 + static_cast<std::uint64_t>(d));
      const std::size_t words = words_for(d);
      std::vector<HashCubePart> parts(2, HashCubePart(d, max_level));
      testing::SplitMix64 rng(static_cast<std::uint64_t>(d));
      for (std::size_t first = 0; first < n;) {
        const std::size_t count = std::min<std::size_t>(n - first, rng.below(70));
        std::vector<PointId> ids(count);
        std::vector<Word> rows(count * words);
        for (std::size_t i = 0; i < count; ++i) {
          ids[i] = static_cast<PointId>(first + i);
          std::copy(bitmaps[first + i].begin(), bitmaps[first + i].end(), rows.begin() + i * words);
        }
        HashCubePart& part = parts[rng.below(2)];
        testing::ThreadTeam team(1 + static_cast<int>(rng.below(4)));
        part.insert_batch(ids, rows, team);
        if (count > 0 && rng.below(4) == 0) {  // undo and redo, as after a failed chunk
          part.erase_if([&](PointId id) { return id >= first && id < first + count; });
          part.insert_batch(ids, rows, team);
        }
        first += count;
      }
      const HashCube cube = HashCube::from_parts(d, n, max_level, std::move(parts));
      for (Mask m = 1; m <= full_mask(d); ++m) {
        if (level(m) <= max_level) {
          ASSERT_EQ(cube.skyline(m), expected_skyline(bitmaps, m)) << "mask " << m;
        }
      }
      for (std::size_t id = 0; id < n; id += 7)
        EXPECT_EQ(cube.membership(static_cast<PointId>(id)), expected_membership(bitmaps[id], d, max_level));
    }
  }
  HashCubePart part(3, 3);
  const std::vector<PointId> ids = {1, 2};
  EXPECT_THROW(part.insert_batch(ids, std::vector<Word>(3)), Error);  // 2 points need 2 words
  testing::ThreadTeam four_threads(4);
  EXPECT_THROW(part.insert_batch(ids, std::vector<Word>(3), four_threads), Error);
}

TEST(HashCube, TwentyColumns) {
  Bitmaps bitmaps(3, std::vector<Word>(words_for(20), all_ones));
  bitmaps[0].assign(words_for(20), 0);  // point 0: skyline everywhere
  bitmaps[2].back() = 0x0u;             // point 2: skyline of the last 31 subspaces only
  const HashCube cube = build(20, 20, bitmaps);
  EXPECT_EQ(cube.skyline(full_mask(20)), (std::vector<PointId>{0, 2}));
  EXPECT_EQ(cube.skyline(1), (std::vector<PointId>{0}));
  EXPECT_EQ(cube.membership(2).size(), 31u);
  EXPECT_EQ(cube.membership(2).front(), full_mask(20) - 30);
}

TEST(HashCube, ShapeIsValidated) {
  EXPECT_THROW(HashCube(0, 1, 1), Error);
  const std::string too_many = error_message([] { HashCube(21, 1, 21); });
  EXPECT_NE(too_many.find("d <= 20 supported"), std::string::npos) << too_many;
  EXPECT_NE(too_many.find("2^d-1 subspaces"), std::string::npos) << too_many;
  EXPECT_THROW(HashCube(4, 1, 0), Error);
  EXPECT_THROW(HashCube(4, 1, 5), Error);
  EXPECT_THROW(HashCubePart(21, 3), Error);
  EXPECT_THROW(HashCubePart(3, 4), Error);
  HashCubePart part(3, 3);
  const std::vector<Word> two_words = {0, 0};
  EXPECT_THROW(part.insert(0, two_words), Error);
}

TEST(HashCube, SubspaceOutOfRangeOrNotComputedThrows) {
  const HashCube full = build(3, 3, flights);
  for (Mask bad : {0u, 8u, 100u}) {
    EXPECT_FALSE(full.computed(bad));
    try {
      (void)full.skyline(bad);
      ADD_FAILURE() << "skyline(" << bad << ") did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
      EXPECT_NE(std::string(e.what()).find("subspace"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("1..7"), std::string::npos) << e.what();
    }
  }
  // Partial cube: levels 1 and 2 only.
  const HashCube partial = build(3, 2, flights);
  EXPECT_EQ(partial.skyline(3), (std::vector<PointId>{1, 2, 3}));
  EXPECT_FALSE(partial.computed(7));
  const std::string message = error_message([&] { (void)partial.skyline(7); });
  EXPECT_NE(message.find("max_level 2"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 2 columns"), std::string::npos) << message;
  EXPECT_EQ(partial.membership(0), (std::vector<Mask>{4, 5, 6})) << "subspace 7 is not computed";
  EXPECT_THROW((void)partial.membership(5), Error);
  EXPECT_THROW((void)HashCube().skyline(1), Error);
}

TEST(HashCube, FromPartsRejectsBadIdsAndShapes) {
  const std::vector<Word> bits = {0x0u};
  {
    std::vector<HashCubePart> parts(2, HashCubePart(3, 3));
    parts[0].insert(1, bits);
    parts[1].insert(1, bits);
    const std::string message = error_message([&] { HashCube::from_parts(3, 4, 3, parts); });
    EXPECT_NE(message.find("point id 1"), std::string::npos) << message;
  }
  {
    std::vector<HashCubePart> parts(2, HashCubePart(3, 3));
    parts[0].insert(2, bits);
    const std::vector<Word> other = {0x5u};
    parts[1].insert(2, other);  // a different key: the duplicate is not adjacent after sorting
    EXPECT_THROW(HashCube::from_parts(3, 4, 3, parts), Error);
  }
  {
    std::vector<HashCubePart> parts(1, HashCubePart(3, 3));
    parts[0].insert(4, bits);
    EXPECT_THROW(HashCube::from_parts(3, 4, 3, parts), Error);
  }
  {
    std::vector<HashCubePart> parts(1, HashCubePart(3, 2));
    EXPECT_THROW(HashCube::from_parts(3, 4, 3, parts), Error);
  }
}

TEST(HashCube, MergeOfTwoCubesEqualsOneBuild) {
  for (int d : {2, 5, 6, 7}) {
    for (int max_level : {1, d}) {
      const Bitmaps bitmaps = random_bitmaps(50, d, static_cast<std::uint64_t>(d * 31 + max_level));
      HashCubePart even(d, max_level);
      HashCubePart odd(d, max_level);
      for (std::size_t id = 0; id < bitmaps.size(); ++id)
        (id % 3 == 0 ? even : odd).insert(static_cast<PointId>(id), bitmaps[id]);
      const HashCube a = HashCube::from_parts(d, bitmaps.size(), max_level, {even});
      const HashCube b = HashCube::from_parts(d, bitmaps.size(), max_level, {odd});
      const HashCube whole = build(d, max_level, bitmaps);
      EXPECT_EQ(HashCube::merge(a, b), whole) << "d=" << d << " max_level=" << max_level;
      EXPECT_EQ(HashCube::merge(b, a), whole) << "d=" << d << " max_level=" << max_level;
      EXPECT_EQ(HashCube::merge(a, HashCube(d, bitmaps.size(), max_level)), a);
    }
  }
}

TEST(HashCube, MergeRejectsOverlapAndShapeMismatch) {
  const HashCube cube = build(3, 3, flights);
  const std::string overlap = error_message([&] { HashCube::merge(cube, cube); });
  EXPECT_NE(overlap.find("both cubes"), std::string::npos) << overlap;
  EXPECT_THROW(HashCube::merge(cube, HashCube(3, 6, 3)), Error);
  EXPECT_THROW(HashCube::merge(cube, HashCube(3, 5, 2)), Error);
  EXPECT_THROW(HashCube::merge(cube, HashCube(4, 5, 4)), Error);
}

std::string saved(const HashCube& cube) {
  std::ostringstream out(std::ios::binary);
  cube.save(out);
  return out.str();
}

HashCube loaded(const std::string& bytes) {
  std::istringstream in(bytes, std::ios::binary);
  return HashCube::load(in, "cube.sxhc");
}

TEST(HashCube, SaveLoadRoundTrip) {
  for (int d : {1, 3, 5, 6, 7}) {
    for (int max_level : {1, d}) {
      const HashCube cube = build(d, max_level, random_bitmaps(40, d, static_cast<std::uint64_t>(d)));
      const std::string bytes = saved(cube);
      EXPECT_EQ(bytes.substr(0, 4), "SXHC");
      EXPECT_EQ(loaded(bytes), cube) << "d=" << d << " max_level=" << max_level;
    }
  }
  EXPECT_EQ(loaded(saved(HashCube(4, 0, 2))), HashCube(4, 0, 2));
  // The header is little-endian: version 1, d, max_level, n.
  const std::string bytes = saved(build(3, 2, flights));
  EXPECT_EQ(bytes.substr(4, 20), std::string("\x01\0\0\0\x03\0\0\0\x02\0\0\0\x05\0\0\0\0\0\0\0", 20));
}

// from_parts assembles a word in one of three ways by how many pairs it holds for n points and how
// many distinct keys they have: dense (at least n / 8 pairs and few keys: an array over every id;
// with 9 000 keys its key table grows), sparse or with near-unique keys and large (a radix sort),
// small (std::sort). The same checks run for each, with ids inserted in descending order over
// several parts, ids above 2^16 and repeated keys.
TEST(HashCube, EveryAssemblyPathMatchesTheBitmaps) {
  const int d = 6;
  const std::size_t n = 70000;
  for (const Word pool : {Word{0}, Word{300}, Word{9000}})  // keys a word is drawn from; 0: any
    for (const std::size_t every : {std::size_t{1}, std::size_t{3}, std::size_t{10}, std::size_t{997}}) {
      SCOPED_TRACE("every " + std::to_string(every) + "th point stored, key pool " + std::to_string(pool));
      Bitmaps bitmaps(n, std::vector<Word>(words_for(d), all_ones));
      const Bitmaps random = random_bitmaps(n, d, 99);
      for (std::size_t i = 5; i < n; i += every)
        for (std::size_t w = 0; w < bitmaps[i].size(); ++w)
          bitmaps[i][w] =
              pool == 0 || random[i][w] == all_ones ? random[i][w] : (random[i][w] % pool) * 0x9E3779B1u;
      const auto parts_of = [&] {
        std::vector<HashCubePart> parts(3, HashCubePart(d, d));
        for (std::size_t i = n; i-- > 0;) parts[i % 3].insert(static_cast<PointId>(i), bitmaps[i]);
        return parts;
      };
      const HashCube cube = HashCube::from_parts(d, n, d, parts_of());
      for (Mask m = 1; m <= full_mask(d); ++m)
        ASSERT_EQ(cube.skyline(m), expected_skyline(bitmaps, m)) << "mask " << m;
      for (std::size_t id = 0; id < n; id += 4999)
        EXPECT_EQ(cube.membership(static_cast<PointId>(id)), expected_membership(bitmaps[id], d, d));
      EXPECT_EQ(loaded(saved(cube)), cube);  // load() checks: keys strictly ascending, ids ascending in a key

      // An id stored twice, under the same key or another one, and an id out of range.
      const auto stored = static_cast<PointId>(5 + every * (n / every / 2));
      ASSERT_NE(bitmaps[stored][0], all_ones);  // stored in word 0
      for (const Word key : {bitmaps[stored][0], Word{bitmaps[stored][0] ^ 0x10u}}) {
        auto parts = parts_of();
        parts[(stored + 1) % 3].insert(stored, std::vector<Word>{key, all_ones});
        const std::string message = error_message([&] { HashCube::from_parts(d, n, d, std::move(parts)); });
        EXPECT_NE(message.find("point id " + std::to_string(stored) + " was inserted more than once"),
                  std::string::npos)
            << message;
      }
      auto parts = parts_of();
      parts[0].insert(static_cast<PointId>(n), std::vector<Word>{0x3u, 0x3u});
      const std::string message = error_message([&] { HashCube::from_parts(d, n, d, std::move(parts)); });
      EXPECT_NE(message.find("point id 70000 is out of range for a cube of 70000 points"), std::string::npos)
          << message;
    }
}

TEST(HashCube, ThreadCountDoesNotChangeTheCube) {
  // d = 9: 16 word positions, so several threads share the words; duplicates are still caught
  // whichever thread meets them.
  const int d = 9;
  const Bitmaps bitmaps = random_bitmaps(3000, d, 7);
  const auto parts_of = [&] {
    std::vector<HashCubePart> parts(3, HashCubePart(d, d));
    for (std::size_t i = 0; i < bitmaps.size(); ++i) parts[i % 3].insert(static_cast<PointId>(i), bitmaps[i]);
    return parts;
  };
  const HashCube one = HashCube::from_parts(d, bitmaps.size(), d, parts_of());
  for (int threads : {2, 5, 16}) {
    testing::ThreadTeam team(threads);
    EXPECT_EQ(HashCube::from_parts(d, bitmaps.size(), d, parts_of(), team), one);
  }
  for (Mask m = 1; m <= full_mask(d); m += 37) ASSERT_EQ(one.skyline(m), expected_skyline(bitmaps, m));

  auto parts = parts_of();
  parts[1].insert(11, bitmaps[11]);  // id 11 already lives in parts[2]
  testing::ThreadTeam four(4);
  EXPECT_THROW(HashCube::from_parts(d, bitmaps.size(), d, std::move(parts), four), Error);
}

// Kept words (kept_words.hpp): two keepers and the parts' pairs, sharing word positions and even
// a part, make the cube that one part of every point makes.
TEST(HashCube, KeptWordsAndPartsMakeOneCube) {
  struct Shape {
    int d;
    int max_level;
  };
  for (const Shape shape : {Shape{3, 3}, Shape{6, 2}, Shape{9, 9}, Shape{12, 4}}) {
    const int d = shape.d;
    const int max_level = shape.max_level;
    const Bitmaps bitmaps = random_bitmaps(700, d, 40 + static_cast<std::uint64_t>(d));
    const HashCube expected = build(d, max_level, bitmaps);
    const auto parts_of = [&] {
      auto a = std::make_shared<testing::HostKeptWords>();
      auto b = std::make_shared<testing::HostKeptWords>();
      HashCubePart kept_a(d, max_level);
      HashCubePart kept_b(d, max_level);
      std::vector<HashCubePart> parts(3, HashCubePart(d, max_level));
      for (std::size_t i = 0; i < bitmaps.size(); ++i) {
        const auto id = static_cast<PointId>(i);
        switch (i % 4) {
          case 0:
            kept_a.insert(id, bitmaps[i]);
            break;
          case 1:
            kept_b.insert(id, bitmaps[i]);
            break;
          case 2:
            parts[0].insert(id, bitmaps[i]);
            break;  // beside a's kept words
          default:
            parts[2].insert(id, bitmaps[i]);
            break;
        }
      }
      a->take(kept_a, {0, 1});
      b->take(kept_b, {1, 2});
      parts[0].keep(a);
      parts[1].keep(b);
      return parts;
    };
    EXPECT_EQ(HashCube::from_parts(d, bitmaps.size(), max_level, parts_of()), expected) << "d = " << d;
    testing::ThreadTeam team(3);
    EXPECT_EQ(HashCube::from_parts(d, bitmaps.size(), max_level, parts_of(), team), expected) << "d = " << d;
  }
}

TEST(HashCube, KeptWordsThatOverlapThePartsOrWereLostAreErrors) {
  const std::vector<Word> bits = {0x0u};
  {
    auto kept = std::make_shared<testing::HostKeptWords>();
    kept->add(0, 0x0u | ~valid_bits(3, 3, 0), 1);
    std::vector<HashCubePart> parts(2, HashCubePart(3, 3));
    parts[0].keep(kept);
    parts[1].insert(1, bits);  // id 1 is kept too
    const std::string message = error_message([&] { HashCube::from_parts(3, 4, 3, parts); });
    EXPECT_NE(message.find("point id 1 is both kept"), std::string::npos) << message;
  }
  {
    auto kept = std::make_shared<testing::HostKeptWords>();
    kept->add(0, 0x3u | ~valid_bits(3, 3, 0), 2);
    kept->lose();
    std::vector<HashCubePart> parts(1, HashCubePart(3, 3));
    parts[0].keep(kept);
    const std::string message = error_message([&] { HashCube::from_parts(3, 4, 3, parts); });
    EXPECT_NE(message.find("lost"), std::string::npos) << message;
  }
  {
    auto kept = std::make_shared<testing::HostKeptWords>();
    kept->add(0, 0x3u, 2);  // the bits of subspaces beyond 2^3 - 1 left clear
    std::vector<HashCubePart> parts(1, HashCubePart(3, 3));
    parts[0].keep(kept);
    EXPECT_THROW(HashCube::from_parts(3, 4, 3, parts), Error);
  }
}

void expect_load_error(const std::string& bytes, const std::string& needle, const std::string& what) {
  try {
    (void)loaded(bytes);
    ADD_FAILURE() << what << ": load did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << what;
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("cube.sxhc: ", 0), 0u) << what << ": " << message;
    EXPECT_NE(message.find(needle), std::string::npos) << what << ": " << message;
  }
}

void put_u32_at(std::string& bytes, std::size_t offset, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) bytes[offset + i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
}

TEST(HashCube, LoadRejectsEveryCorruption) {
  const std::string good = saved(build(6, 6, random_bitmaps(20, 6, 7)));
  ASSERT_NO_THROW((void)loaded(good));

  expect_load_error("", "magic", "empty file");
  expect_load_error("SXH", "magic", "short magic");
  expect_load_error("PK\x03\x04" + good.substr(4), "magic", "bad magic");
  for (std::size_t size = 4; size < good.size(); ++size)
    expect_load_error(good.substr(0, size), "truncated", "truncated to " + std::to_string(size) + " bytes");
  expect_load_error(good + "x", "trailing bytes: 1 byte after the end of the HashCube", "one extra byte");
  expect_load_error(good + good, "trailing bytes: " + std::to_string(good.size()) + " bytes", "two cubes");
  expect_load_error(good + std::string((1 << 20) + 5, '\0'), "trailing bytes: more than 1048576 bytes",
                    "a long tail");

  std::string bad = good;
  put_u32_at(bad, 4, 2);
  expect_load_error(bad, "version 2", "bad version");
  bad = good;
  put_u32_at(bad, 8, 21);
  expect_load_error(bad, "d = 21", "bad d");
  bad = good;
  put_u32_at(bad, 8, 0);
  expect_load_error(bad, "d = 0", "zero d");
  bad = good;
  put_u32_at(bad, 12, 7);
  expect_load_error(bad, "max_level = 7", "bad max_level");

  // Word 0 starts at byte 24: key count (8 bytes), keys, offsets, ids.
  const std::size_t keys_at = 32;
  std::uint32_t key_count = 0;
  for (std::size_t i = 0; i < 4; ++i)
    key_count |= std::uint32_t{static_cast<unsigned char>(good[24 + i])} << (8 * i);
  ASSERT_GE(key_count, 2u);
  const std::size_t offsets_at = keys_at + 4 * key_count;
  const std::size_t ids_at = offsets_at + 4 * (key_count + 1);

  bad = good;
  put_u32_at(bad, 24, 1000);
  expect_load_error(bad, "keys for 20 points", "key count above n");
  bad = good;
  put_u32_at(bad, keys_at + 4, 0);  // second key below the first (first key is > 0 or equal)
  put_u32_at(bad, keys_at, 1);
  expect_load_error(bad, "not strictly ascending", "unsorted keys");
  bad = good;
  put_u32_at(bad, offsets_at, 1);
  expect_load_error(bad, "first offset", "offset 0");
  bad = good;
  put_u32_at(bad, offsets_at + 4, 0);
  expect_load_error(bad, "strictly increasing", "offsets not monotone");
  bad = good;
  put_u32_at(bad, ids_at, 20);
  expect_load_error(bad, "out of range", "id >= n");

  // Table 1's cube: one word of four keys with one id each; ids start at byte 24 + 8 + 16 + 20.
  bad = saved(build(3, 3, flights));
  ASSERT_NO_THROW((void)loaded(bad));
  put_u32_at(bad, 72, 0);  // the second key's id becomes the first key's
  expect_load_error(bad, "point id 0 is stored under two keys", "id under two keys");
  bad = saved(build(3, 3, flights));
  put_u32_at(bad, 32, 0x0u);  // a key that clears bits of subspaces 8..32, which do not exist
  expect_load_error(bad, "do not exist", "invalid bits cleared");

  // The same in a sparse word (ids for fewer than 1/64 of the points, checked by sorting): 1 000
  // points, two stored, ids 3 and 7 under two keys at bytes 24 + 8 + 8 + 12 and 4 more.
  Bitmaps sparse(1000, std::vector<Word>{all_ones});
  sparse[3] = {0x07};
  sparse[7] = {0x0B};
  bad = saved(build(3, 3, sparse));
  ASSERT_NO_THROW((void)loaded(bad));
  put_u32_at(bad, 56, 3);
  expect_load_error(bad, "point id 3 is stored under two keys", "id under two keys, sparse word");
}

// Words whose keys come from a few patterns, one of them shared by half the points, with ids
// spread over 5 parts (60 000 points: the radix path), answer every query like the bitmaps and
// load back (loading checks that each key's ids ascend); an id given twice in one word, under two
// keys or under one, is an error naming it.
TEST(HashCube, FewDistinctKeysPerWord) {
  constexpr int d = 6;
  constexpr std::size_t n = 60000;
  testing::SplitMix64 rng(9);
  Bitmaps bitmaps(n, std::vector<Word>(words_for(d)));
  for (auto& bitmap : bitmaps)
    for (Word& w : bitmap) {
      const std::uint64_t r = rng.below(1000);
      w = r < 500 ? 0x0F0F0F0Fu : r < 900 ? static_cast<Word>(0x10000u * (r % 200) + 0x1234u) : all_ones;
    }
  const HashCube cube = build(d, d, bitmaps, 5);
  for (Mask m = 1; m <= full_mask(d); ++m) ASSERT_EQ(cube.skyline(m), expected_skyline(bitmaps, m)) << m;
  EXPECT_EQ(loaded(saved(cube)), cube);  // loading checks that each key's ids ascend

  for (const Word second_key : {Word{0x0F0F0F0Fu}, Word{0x1234u}}) {
    Bitmaps twice = bitmaps;
    twice[7][0] = 0x0F0F0F0Fu;  // in the key that holds half the points
    std::vector<HashCubePart> parts(2, HashCubePart(d, d));
    parts[0].insert(7, std::vector<Word>{second_key, all_ones});  // id 7 twice in word 0, first here
    for (std::size_t id = 0; id < twice.size(); ++id)
      parts[id % 2].insert(static_cast<PointId>(id), twice[id]);
    const std::string message = error_message([&] { HashCube::from_parts(d, twice.size(), d, parts); });
    EXPECT_NE(message.find("point id 7 was inserted more than once"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace sextant::skycube
