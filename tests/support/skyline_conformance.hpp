// The skyline front door's test body (api/skyline.hpp), the same for every device mix: the CPU
// paths in tests/api/skyline_api_test.cpp, the GPUs in tests/gpu/skyline_gpu_test.cpp. Ids are
// compared id for id with oracles written from the definition (brute force on small data, block
// nested loops on data large enough for the prefilter and the split into ranges) and with the
// skycube's skyline(mask), on data with ties and exact duplicates.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "api/skycube.hpp"
#include "api/skyline.hpp"
#include "datagen/skyline_generator.hpp"
#include "support/window_skyline.hpp"
#include "testing/brute_force_skycube.hpp"
#include "testing/random_data.hpp"

namespace sextant::testing {

// Every subspace of small data with ties and duplicates (levels 0: almost no ties).
inline void expect_small_skylines_conform(const SkylineOptions& options) {
  struct Case {
    std::size_t n;
    int levels;
    std::uint64_t seed;
  };
  for (const Case c : {Case{1, 0, 1}, Case{2, 2, 2}, Case{257, 3, 3}, Case{300, 6, 4}, Case{200, 0, 5},
                       Case{256, 3, 6}, Case{100, 2, 7}}) {
    const Dataset data = random_dataset(c.n, 5, c.levels, c.seed);
    skycube::SkycubeOptions reference;
    reference.kind = skycube::TemplateKind::reference;
    const skycube::HashCube cube = skycube::compute_skycube(data, reference).cube;
    for (Mask m = 1; m <= full_mask(5); ++m) {
      SCOPED_TRACE("n " + std::to_string(c.n) + ", levels " + std::to_string(c.levels) + ", subspace " +
                   std::to_string(m));
      const std::vector<PointId> got = skyline(data, m, options).ids;
      EXPECT_EQ(got, brute_force_skyline(data, m));
      EXPECT_EQ(got, cube.skyline(m));
    }
  }
}

// Large enough for the prefilter (cpu/skycube/cuboid_state.hpp) and for the split into ranges
// (policy::SkylineSplit): independent and tie-heavy data, a few subspaces each, and
// anticorrelated data, where the prefilter does not pay and stands aside.
inline void expect_large_skylines_conform(const SkylineOptions& options) {
  struct Case {
    Dataset data;
    std::vector<Mask> masks;
  };
  std::vector<Case> cases;
  cases.push_back({random_dataset(70000, 4, 0, 11, 5), {0b1111, 0b0101, 0b1000}});
  cases.push_back({random_dataset(70000, 4, 12, 12, 20), {0b1111, 0b0110}});
  cases.push_back({datagen::generate({datagen::Distribution::anticorrelated, 30000, 3, 13}), {0b111, 0b011}});
  for (const Case& c : cases)
    for (const Mask m : c.masks) {
      SCOPED_TRACE("n " + std::to_string(c.data.size()) + ", subspace " + std::to_string(m));
      EXPECT_EQ(skyline(c.data, m, options).ids, window_skyline(c.data, m));
    }
}

}  // namespace sextant::testing
