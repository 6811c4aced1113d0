// The one test body every skycube template and every backend runs: the same workloads (all
// distributions, heavy ties, exact duplicates, d = 1 .. 12, n = 1 .. a few thousand), thread
// counts 1, 2 and 8, full and partial cubes, compared id for id with the reference skycube.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/dataset.hpp"
#include "cpu/skycube/reference_skycube.hpp"
#include "datagen/skyline_generator.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "testing/brute_force_skycube.hpp"

namespace sextant::testing {

struct SkycubeRunner {
  std::string name;
  // Computes the (partial) skycube of `data` with `threads` CPU threads.
  std::function<skycube::HashCube(const Dataset& data, int max_level, int threads)> run;
};

struct ConformanceWorkload {
  std::string name;
  Dataset data;
};

inline Dataset with_duplicated_rows(const Dataset& in) {
  std::vector<float> v;
  for (PointId i = 0; i < in.size(); ++i)
    for (int copy = 0; copy < 1 + static_cast<int>(i % 3 == 0); ++copy)
      for (int j = 0; j < in.dims(); ++j) v.push_back(in(i, j));
  return Dataset(v.size() / static_cast<std::size_t>(in.dims()), in.dims(), v);
}

inline std::vector<ConformanceWorkload> conformance_workloads() {
  using datagen::Distribution;
  std::vector<ConformanceWorkload> out;
  auto add = [&](Distribution dist, std::size_t n, int d, std::uint64_t seed, int levels = 4) {
    datagen::GeneratorSpec spec;
    spec.distribution = dist;
    spec.n = n;
    spec.d = d;
    spec.seed = seed;
    spec.levels = levels;
    std::ostringstream name;
    name << datagen::to_string(dist) << (dist == Distribution::ties ? ":" + std::to_string(levels) : "")
         << " n=" << n << " d=" << d << " seed=" << seed;
    out.push_back({name.str(), datagen::generate(spec)});
  };
  // Tiny and degenerate.
  for (int d = 1; d <= 4; ++d) {
    add(Distribution::independent, 1, d, 1);
    add(Distribution::ties, 2, d, 2, 2);
    add(Distribution::ties, 40, d, 3, 2);
  }
  // Every distribution over a range of d.
  const std::uint64_t seeds[] = {11, 12, 13};
  for (int d : {2, 3, 5, 6, 8}) {
    add(Distribution::independent, 600, d, seeds[0]);
    add(Distribution::correlated, 600, d, seeds[1]);
    add(Distribution::anticorrelated, 600, d, seeds[2]);
    add(Distribution::ties, 600, d, seeds[0] + d, 2 + d % 3);  // 2..4 distinct values per column
  }
  for (int d : {10, 12}) {
    add(Distribution::independent, 300, d, seeds[1]);
    add(Distribution::anticorrelated, 200, d, seeds[2]);
    add(Distribution::ties, 300, d, seeds[0], 3);
  }
  add(Distribution::independent, 3000, 6, 21);
  add(Distribution::anticorrelated, 2000, 4, 22);
  // Many distinct vectors, heavy ties in the low subspaces (the lattice groups tied candidates).
  add(Distribution::ties, 3000, 6, 23, 8);
  add(Distribution::ties, 2500, 8, 24, 5);
  // Exact duplicates of whole rows on top of ties.
  const std::size_t before = out.size();
  for (std::size_t i = 0; i < before; i += 5)
    out.push_back({out[i].name + " +duplicated rows", with_duplicated_rows(out[i].data)});
  return out;
}

// The reference skycube of `data`. With $SEXTANT_TEST_REFERENCE_DIR set (scripts/test.sh sets a
// fresh one for each run), it is kept there as a HashCube file named by `name`, max_level and a
// hash of the values, so that the test processes of one run compute each reference once instead
// of once each. The file is written whole or not at all, so processes running side by side may
// both compute it.
inline skycube::HashCube shared_reference_cube(const Dataset& data, const std::string& name, int max_level) {
  const char* dir = std::getenv("SEXTANT_TEST_REFERENCE_DIR");
  if (dir == nullptr || *dir == 0) return skycube::reference_skycube(data, max_level);
  std::uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a over n, d and the values' bits
  const auto mix = [&](std::uint64_t x) {
    for (int byte = 0; byte < 8; ++byte) hash = (hash ^ ((x >> (8 * byte)) & 0xFFu)) * 0x100000001B3ull;
  };
  mix(data.size());
  mix(static_cast<std::uint64_t>(data.dims()));
  for (const float v : data.values()) mix(std::bit_cast<std::uint32_t>(v));
  std::ostringstream file;
  file << dir << '/';
  for (const char c : name) file << (std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_');
  file << "-l" << max_level << '-' << std::hex << hash << ".sxhc";
  if (std::ifstream in(file.str(), std::ios::binary); in) return skycube::HashCube::load(in, file.str());
  skycube::HashCube cube = skycube::reference_skycube(data, max_level);
  AtomicFile out(file.str(), true);
  cube.save(out.stream());
  out.commit();
  return cube;
}

// The reference cube of a workload, computed once per test binary (and once per run, above).
inline const skycube::HashCube& reference_cube(const ConformanceWorkload& w, int max_level) {
  static std::map<std::pair<std::string, int>, skycube::HashCube> cache;
  auto key = std::make_pair(w.name, max_level);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, shared_reference_cube(w.data, w.name, max_level)).first;
  return it->second;
}

inline std::string ids_to_string(const std::vector<PointId>& ids) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ids.size() && i < 40; ++i) s << (i ? " " : "") << ids[i];
  if (ids.size() > 40) s << " ... (" << ids.size() << " ids)";
  return s.str();
}

// Compares two cubes subspace by subspace, id for id; reports the first differing subspaces.
inline void expect_same_skycube(const skycube::HashCube& actual, const skycube::HashCube& expected) {
  ASSERT_EQ(actual.dims(), expected.dims());
  ASSERT_EQ(actual.max_level(), expected.max_level());
  ASSERT_EQ(actual.point_count(), expected.point_count());
  int reported = 0;
  for (Mask m = 1; m <= full_mask(expected.dims()); ++m) {
    if (!expected.computed(m)) {
      EXPECT_FALSE(actual.computed(m)) << "subspace " << m << " is above max_level but reported as computed";
      continue;
    }
    const auto a = actual.skyline(m);
    const auto e = expected.skyline(m);
    if (a != e && reported++ < 5)
      ADD_FAILURE() << "subspace " << m << ":\n  got      " << ids_to_string(a) << "\n  expected "
                    << ids_to_string(e);
  }
  EXPECT_EQ(reported, 0) << reported << " subspaces differ";
}

// The whole conformance sweep for one runner. `max_dims` > 0 leaves out the workloads of more
// columns (2^d subspaces each: for a slow hook, such as a naive O(n^2) one, of your own).
inline void run_conformance(const SkycubeRunner& runner, const std::vector<int>& thread_counts = {1, 2, 8},
                            int max_dims = 0) {
  for (const auto& w : conformance_workloads()) {
    const int d = w.data.dims();
    if (max_dims > 0 && d > max_dims) continue;
    // Level 2 of a wide cube: the lattice starts below the top (LatticeRun::start_level).
    std::vector<int> levels{d};
    for (int l : {(d + 1) / 2, 2})
      if (l < levels.back() && l >= 1) levels.push_back(l);
    for (int max_level : levels) {
      for (int threads : thread_counts) {
        SCOPED_TRACE(runner.name + " on " + w.name + " max_level=" + std::to_string(max_level) +
                     " threads=" + std::to_string(threads));
        expect_same_skycube(runner.run(w.data, max_level, threads), reference_cube(w, max_level));
        if (::testing::Test::HasFailure()) return;  // one broken case is enough to read
      }
    }
  }
}

// Large tie-heavy data (n >= 10^5, Q = 2 and 3 levels per column, max columns, exact duplicates
// everywhere; and 4 000 mostly distinct vectors of 4 levels in 10 columns) checked on a sample of
// subspaces. The reference is brute force, O(n^2), so each sampled subspace is checked through its
// distinct projected vectors: points with the same values in a subspace have the same status
// there, so the brute-force skyline of the distinct projections (a few hundred points, a few
// thousand for the 10 columns) names the vectors whose points form the subspace's skyline.
struct TieHeavyWorkload {
  std::string name;
  Dataset data;
};

inline std::vector<TieHeavyWorkload> tie_heavy_workloads() {
  std::vector<TieHeavyWorkload> out;
  const auto add = [&](int levels, std::size_t n, int d, std::uint64_t seed,
                       std::vector<Preference> prefer = {}) {
    datagen::GeneratorSpec spec;
    spec.distribution = datagen::Distribution::ties;
    spec.n = n;
    spec.d = d;
    spec.seed = seed;
    spec.levels = levels;
    const Dataset raw = datagen::generate(spec);
    std::vector<float> values(raw.values().begin(), raw.values().end());
    std::string name =
        "ties:" + std::to_string(levels) + " n=" + std::to_string(n) + " d=" + std::to_string(d);
    if (!prefer.empty()) name += " with max columns";
    out.push_back({name, Dataset(n, d, values, std::move(prefer), name)});
  };
  using P = Preference;
  add(2, 120000, 6, 41);
  add(3, 100000, 5, 42);
  add(3, 100000, 4, 43, {P::max, P::min, P::max, P::min});  // max columns: 0.0 becomes -0.0
  // Few values per column but many distinct vectors (4^10): most points hold some column's
  // minimum, so they are in small subspaces' skylines for sure, and 1 024 subspaces take 16 words.
  add(4, 4000, 10, 44);
  return out;
}

// The subspaces to check: every one of level 1 and 2, the full space, and a few others.
inline std::vector<Mask> sampled_subspaces(int d, int max_level) {
  std::vector<Mask> out;
  for (Mask m = 1; m <= full_mask(d); ++m) {
    const int l = level(m);
    if (l > max_level) continue;
    if (l <= 2 || m == full_mask(d) || m % (d >= 9 ? 29 : 7) == 3) out.push_back(m);
  }
  return out;
}

// S_m of `data`, through the reference skycube of the distinct projections onto m.
inline std::vector<PointId> projected_reference_skyline(const Dataset& data, Mask m) {
  std::vector<int> columns;
  for (int c = 0; c < data.dims(); ++c)
    if ((m >> c) & 1u) columns.push_back(c);
  std::map<std::vector<float>, std::vector<PointId>> groups;  // value 0.0f and -0.0f: one key
  for (PointId id = 0; id < data.size(); ++id) {
    std::vector<float> key;
    for (const int c : columns) key.push_back(data(id, c) == 0.0f ? 0.0f : data(id, c));
    groups[key].push_back(id);
  }
  std::vector<float> values;
  for (const auto& [key, ids] : groups) values.insert(values.end(), key.begin(), key.end());
  const int k = static_cast<int>(columns.size());
  const Dataset distinct(groups.size(), k, values);
  const std::vector<PointId> keep = brute_force_skyline(distinct, full_mask(k));
  std::vector<PointId> out;
  auto group = groups.begin();
  PointId index = 0;
  for (const PointId g : keep) {
    std::advance(group, g - index);
    index = g;
    out.insert(out.end(), group->second.begin(), group->second.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline void run_tie_heavy(const SkycubeRunner& runner, int threads = 2) {
  for (const TieHeavyWorkload& w : tie_heavy_workloads()) {
    const int d = w.data.dims();
    for (const int max_level : {d, 2}) {
      SCOPED_TRACE(runner.name + " on " + w.name + " max_level=" + std::to_string(max_level));
      const skycube::HashCube cube = runner.run(w.data, max_level, threads);
      ASSERT_EQ(cube.point_count(), w.data.size());
      ASSERT_EQ(cube.max_level(), max_level);
      for (const Mask m : sampled_subspaces(d, max_level)) {
        static std::map<std::pair<std::string, Mask>, std::vector<PointId>> cache;  // per test binary
        auto it = cache.find({w.name, m});
        if (it == cache.end())
          it = cache.emplace(std::make_pair(w.name, m), projected_reference_skyline(w.data, m)).first;
        const std::vector<PointId>& expected = it->second;
        ASSERT_FALSE(expected.empty());
        const auto actual = cube.skyline(m);
        ASSERT_EQ(actual, expected) << "subspace " << m << ":\n  got      " << ids_to_string(actual)
                                    << "\n  expected " << ids_to_string(expected);
      }
    }
  }
}

}  // namespace sextant::testing
