// The NBA data shipped in data/ (17264 x 8, trailing commas) as one more workload of the skycube
// conformance body (testing/skycube_conformance.hpp). Tests only: it reads the repository's data/,
// so it is not part of Sextant::testing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "datagen/csv.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant::testing {

// The full skyline has 1796 points. $SEXTANT_SOURCE_DIR (as ctest sets it) wins over the build's
// source path, so that a test binary also finds the data when it runs from another copy of the
// repository.
inline Dataset nba_dataset() {
  const char* root = std::getenv("SEXTANT_SOURCE_DIR");
  return datagen::read_csv(std::string(root != nullptr && *root != 0 ? root : SEXTANT_SOURCE_DIR) +
                           "/data/nba-8-17264.csv");
}

inline void run_nba(const SkycubeRunner& runner, int threads) {
  static const Dataset nba = nba_dataset();
  static const skycube::HashCube expected = shared_reference_cube(nba, "nba", nba.dims());
  const auto actual = runner.run(nba, nba.dims(), threads);
  EXPECT_EQ(actual.skyline(full_mask(8)).size(), 1796u);
  expect_same_skycube(actual, expected);
}

}  // namespace sextant::testing
