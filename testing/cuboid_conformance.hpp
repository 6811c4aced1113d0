// The test body every cuboid hook (CPU and GPU, sequential and parallel) runs: S_m and S+_m \ S_m
// of random candidate subsets in random subspaces of tie-heavy data, compared id for id with a
// brute-force reference. Installed as part of Sextant::testing for a user's own hook:
//   MyCuboid hook;
//   sextant::testing::check_cuboid_hook(hook, sextant::testing::tie_heavy_datasets());
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "datagen/skyline_generator.hpp"
#include "templates/skycube/hooks.hpp"
#include "testing/brute_force_skycube.hpp"
#include "testing/random_data.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant::testing {

// Random ascending subset with about `fraction` of the points.
inline std::vector<PointId> random_subset(std::size_t n, double fraction, std::mt19937& rng) {
  std::bernoulli_distribution keep(fraction);
  std::vector<PointId> ids;
  for (std::size_t i = 0; i < n; ++i)
    if (keep(rng)) ids.push_back(static_cast<PointId>(i));
  return ids;
}

inline Dataset generate_dataset(datagen::Distribution dist, std::size_t n, int d, std::uint64_t seed,
                                int levels = 4) {
  datagen::GeneratorSpec spec;
  spec.distribution = dist;
  spec.n = n;
  spec.d = d;
  spec.seed = seed;
  spec.levels = levels;
  return datagen::generate(spec);
}

inline std::vector<Dataset> tie_heavy_datasets() {
  using datagen::Distribution;
  std::vector<Dataset> out;
  out.push_back(generate_dataset(Distribution::ties, 700, 4, 5, 2));
  out.push_back(generate_dataset(Distribution::ties, 900, 6, 6, 3));
  out.push_back(with_duplicated_rows(generate_dataset(Distribution::ties, 500, 5, 7, 4)));
  out.push_back(with_duplicated_rows(generate_dataset(Distribution::anticorrelated, 800, 8, 8)));
  out.push_back(generate_dataset(Distribution::independent, 1200, 12, 9));
  out.push_back(generate_dataset(Distribution::ties, 500, 14, 15, 3));  // two code words per point
  out.push_back(generate_dataset(Distribution::ties, 600, 17, 10, 3));  // two AVX2 registers per row
  return out;
}

// The cuboid hook on random subspaces and random candidate subsets.
template <class Hook>
void check_cuboid_hook(Hook& hook, const std::vector<Dataset>& datasets, int trials = 6) {
  std::mt19937 rng(42);
  for (const Dataset& data : datasets) {
    for (int trial = 0; trial < trials; ++trial) {
      const Mask m = std::uniform_int_distribution<Mask>(1, full_mask(data.dims()))(rng);
      const std::vector<PointId> ids = trial == 0 ? all_ids(data) : random_subset(data.size(), 0.6, rng);
      SCOPED_TRACE(data.origin() + " d=" + std::to_string(data.dims()) + " mask=" + std::to_string(m) +
                   " candidates=" + std::to_string(ids.size()));
      skycube::CuboidOutput out;
      hook.compute(skycube::CuboidInput{data, ids, m}, out);
      const skycube::CuboidOutput expected = brute_force_cuboid(data, ids, m);
      EXPECT_EQ(out.skyline, expected.skyline);
      EXPECT_EQ(out.extended_only, expected.extended_only);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace sextant::testing
