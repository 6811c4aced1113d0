// STSC and SDSC on the CPU against the reference skycube (the shared conformance body), plus the
// CPU hooks they are made of — the cuboid hooks and the extended skyline — against brute force
// on tie-heavy data. ctest runs this binary twice: with the CPU's SIMD level and with
// SEXTANT_SIMD=scalar, so both kernel instantiations are covered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "cpu/omp_team.hpp"
#include "cpu/skycube/cuboid_cpu.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "datagen/skyline_generator.hpp"
#include "support/cpu_entries.hpp"
#include "support/nba.hpp"
#include "templates/skycube/lattice_traversal.hpp"
#include "templates/skycube/sdsc.hpp"
#include "templates/skycube/stsc.hpp"
#include "testing/cuboid_conformance.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant {
namespace {

using skycube::CuboidInput;
using skycube::CuboidOutput;

testing::SkycubeRunner stsc_runner() {
  return {"stsc", [](const Dataset& data, int max_level, int threads) {
            return testing::stsc_on_cpu(data, {skycube::TemplateKind::stsc, max_level, threads}).cube;
          }};
}

// The paper's candidate rule (smallest parent only), through the templates directly.
testing::SkycubeRunner smallest_parent_runner(bool sdsc) {
  return {
      sdsc ? "sdsc smallest parent" : "stsc smallest parent",
      [sdsc](const Dataset& data, int max_level, int threads) {
        cpu::ExtendedSkylineCpu extended{threads};
        cpu::OmpTeam team(threads);
        const auto rule = skycube::CandidateRule::smallest_parent;
        if (sdsc) {
          std::vector<cpu::ParallelCuboidCpu> devices{cpu::ParallelCuboidCpu{threads}};
          sextant::SerialTeam device_team;
          return skycube::sdsc(data, max_level, extended, std::span(devices), device_team, team, rule).cube;
        }
        std::vector<cpu::SequentialCuboidCpu> hooks(static_cast<std::size_t>(threads));
        return skycube::stsc(data, max_level, extended, std::span(hooks), team, rule).cube;
      }};
}

// An extended-skyline hook without full_cuboid: the templates compute the full-space cuboid with
// their cuboid hook.
struct PlainExtendedSkyline {
  static constexpr std::string_view name = "plain-extended-skyline";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  int threads = 1;
  std::vector<PointId> extended_skyline(const Dataset& data) {
    return cpu::ExtendedSkylineCpu{threads}.extended_skyline(data);
  }
};
static_assert(!skycube::ClassifyingExtendedSkylineHook<PlainExtendedSkyline>);
static_assert(skycube::ClassifyingExtendedSkylineHook<cpu::ExtendedSkylineCpu>);

testing::SkycubeRunner plain_extended_runner(bool sdsc) {
  return {sdsc ? "sdsc plain extended" : "stsc plain extended",
          [sdsc](const Dataset& data, int max_level, int threads) {
            PlainExtendedSkyline extended{threads};
            cpu::OmpTeam team(threads);
            if (sdsc) {
              std::vector<cpu::ParallelCuboidCpu> devices{cpu::ParallelCuboidCpu{threads}};
              sextant::SerialTeam device_team;
              return skycube::sdsc(data, max_level, extended, std::span(devices), device_team, team).cube;
            }
            std::vector<cpu::SequentialCuboidCpu> hooks(static_cast<std::size_t>(threads));
            return skycube::stsc(data, max_level, extended, std::span(hooks), team).cube;
          }};
}

testing::SkycubeRunner sdsc_runner() {
  return {"sdsc", [](const Dataset& data, int max_level, int threads) {
            return testing::sdsc_on_cpu(data, {skycube::TemplateKind::sdsc, max_level, threads}).cube;
          }};
}

// The cuboid body shared with the GPU hook's tests (testing/cuboid_conformance.hpp).
Dataset generate(datagen::Distribution dist, std::size_t n, int d, std::uint64_t seed, int levels = 4) {
  return testing::generate_dataset(dist, n, d, seed, levels);
}
CuboidOutput brute_force(const Dataset& data, std::span<const PointId> candidates, Mask m) {
  return testing::brute_force_cuboid(data, candidates, m);
}
using testing::all_ids;
using testing::check_cuboid_hook;
using testing::tie_heavy_datasets;

TEST(StscSdscTest, SimdLevelFollowsEnvironment) {
  const char* forced = std::getenv("SEXTANT_SIMD");
  if (forced != nullptr && std::strcmp(forced, "scalar") == 0) {
    EXPECT_EQ(simd_level(), SimdLevel::scalar);
  }
  std::cout << "[          ] SIMD level: " << to_string(simd_level()) << "\n";
}

TEST(StscSdscTest, SequentialCuboidMatchesBruteForce) {
  cpu::SequentialCuboidCpu hook;
  check_cuboid_hook(hook, tie_heavy_datasets());
}

TEST(StscSdscTest, ParallelCuboidMatchesBruteForce) {
  // Large enough for the parallel tiles (several thousand candidates), with heavy ties.
  std::vector<Dataset> datasets = tie_heavy_datasets();
  datasets.push_back(generate(datagen::Distribution::ties, 7000, 5, 11, 3));
  datasets.push_back(
      testing::with_duplicated_rows(generate(datagen::Distribution::anticorrelated, 5000, 6, 12)));
  for (int threads : {2, 3}) {
    cpu::ParallelCuboidCpu hook{threads};
    SCOPED_TRACE("threads=" + std::to_string(threads));
    check_cuboid_hook(hook, datasets);
  }
}

// Inside another parallel region OpenMP grants the hook one thread: every partition must still
// be computed.
TEST(StscSdscTest, ParallelCuboidInsideParallelRegion) {
  const Dataset data = generate(datagen::Distribution::ties, 6000, 5, 16, 4);
  const std::vector<PointId> ids = all_ids(data);
  const CuboidOutput expected = brute_force(data, ids, 0b10111);
  std::vector<CuboidOutput> outs(2);
#pragma omp parallel for num_threads(2)
  for (int t = 0; t < 2; ++t) {
    cpu::ParallelCuboidCpu hook{4};
    hook.compute(CuboidInput{data, ids, 0b10111}, outs[static_cast<std::size_t>(t)]);
  }
  for (const CuboidOutput& out : outs) {
    EXPECT_EQ(out.skyline, expected.skyline);
    EXPECT_EQ(out.extended_only, expected.extended_only);
  }
}

TEST(StscSdscTest, OmpTeamRunsEveryTaskAndRethrows) {
  cpu::OmpTeam team(3);
  std::vector<int> seen(100, 0);
  team.run_tasks(seen.size(), [&](std::size_t task, int worker) {
    EXPECT_GE(worker, 0);
    EXPECT_LT(worker, team.workers());
    seen[task] += 1;
  });
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 100);
  EXPECT_THROW(team.run_tasks(10,
                              [](std::size_t task, int) {
                                if (task == 7) throw Error::internal("task 7");
                              }),
               Error);
}

TEST(StscSdscTest, CuboidWithNoCandidates) {
  const Dataset data = generate(datagen::Distribution::independent, 10, 3, 1);
  cpu::SequentialCuboidCpu hook;
  CuboidOutput out;
  out.skyline = {1, 2};
  hook.compute(CuboidInput{data, {}, 3}, out);
  EXPECT_TRUE(out.skyline.empty());
  EXPECT_TRUE(out.extended_only.empty());
}

TEST(StscSdscTest, ExtendedSkylineMatchesBruteForce) {
  std::vector<Dataset> datasets = tie_heavy_datasets();
  datasets.push_back(generate(datagen::Distribution::ties, 8000, 4, 13, 3));
  datasets.push_back(
      testing::with_duplicated_rows(generate(datagen::Distribution::independent, 6000, 3, 14)));
  for (const Dataset& data : datasets) {
    const std::vector<PointId> ids = all_ids(data);
    const CuboidOutput expected = brute_force(data, ids, full_mask(data.dims()));
    std::vector<PointId> extended(expected.skyline.size() + expected.extended_only.size());
    std::merge(expected.skyline.begin(), expected.skyline.end(), expected.extended_only.begin(),
               expected.extended_only.end(), extended.begin());
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(data.origin() + " threads=" + std::to_string(threads));
      cpu::ExtendedSkylineCpu hook{threads};
      EXPECT_EQ(hook.extended_skyline(data), extended);
      const CuboidOutput split = hook.full_cuboid(data);
      EXPECT_EQ(split.skyline, expected.skyline);
      EXPECT_EQ(split.extended_only, expected.extended_only);
    }
  }
}

TEST(StscSdscTest, ExtendedSkylineOfEmptyAndSinglePoint) {
  cpu::ExtendedSkylineCpu hook{2};
  EXPECT_TRUE(hook.extended_skyline(Dataset(0, 3, {})).empty());
  const std::vector<float> one = {1.0f, 2.0f};
  EXPECT_EQ(hook.extended_skyline(Dataset(1, 2, one)), std::vector<PointId>{0});
}

// Scores that tie although one point dominates the other (float rounding): the tile must
// compare equal-score points in both directions.
TEST(StscSdscTest, RoundedEqualScoresStillDominate) {
  const float big = 16777216.0f;                       // 2^24: big + 1 rounds back to big
  const std::vector<float> values = {big, 1.0f, 0.0f,  //
                                     big, 0.0f, 0.0f,  // dominates the first; same float sum
                                     big, 1.0f, 0.0f};
  const Dataset data(3, 3, values);
  cpu::SequentialCuboidCpu hook;
  const std::vector<PointId> ids = {0, 1, 2};
  CuboidOutput out;
  hook.compute(CuboidInput{data, ids, 7}, out);
  EXPECT_EQ(out.skyline, std::vector<PointId>{1});
  EXPECT_EQ(out.extended_only, (std::vector<PointId>{0, 2}));
  cpu::ExtendedSkylineCpu extended{1};
  EXPECT_EQ(extended.extended_skyline(data), (std::vector<PointId>{0, 1, 2}));
}

TEST(StscSdscTest, StscConformance) {
  testing::run_conformance(stsc_runner());
}
TEST(StscSdscTest, SdscConformance) {
  testing::run_conformance(sdsc_runner());
}
TEST(StscSdscTest, SmallestParentRuleConformance) {
  testing::run_conformance(smallest_parent_runner(false), {1, 2});
  testing::run_conformance(smallest_parent_runner(true), {2});
}
TEST(StscSdscTest, PlainExtendedSkylineHook) {
  testing::run_conformance(plain_extended_runner(false), {2});
  testing::run_conformance(plain_extended_runner(true), {2});
  testing::run_nba(plain_extended_runner(true), 2);
}
// n >= 10^5 with 2 and 3 levels per column (issue 21): few distinct vectors, checked on sampled
// subspaces.
TEST(StscSdscTest, StscTieHeavyLarge) {
  testing::run_tie_heavy(stsc_runner());
}
TEST(StscSdscTest, SdscTieHeavyLarge) {
  testing::run_tie_heavy(sdsc_runner());
}
TEST(StscSdscTest, SmallestParentTieHeavyLarge) {
  testing::run_tie_heavy(smallest_parent_runner(false));
}

TEST(StscSdscTest, StscNba) {
  testing::run_nba(stsc_runner(), 2);
}
TEST(StscSdscTest, SdscNba) {
  testing::run_nba(sdsc_runner(), 2);
}

TEST(StscSdscTest, ResultDescribesTheRun) {
  const Dataset data = generate(datagen::Distribution::independent, 2000, 5, 3);
  for (const auto& result : {testing::stsc_on_cpu(data, {}), testing::sdsc_on_cpu(data, {})}) {
    EXPECT_EQ(result.extended_skyline_size, cpu::ExtendedSkylineCpu{1}.extended_skyline(data).size());
    ASSERT_EQ(result.phases.phases().size(), 3u);
    EXPECT_EQ(result.phases.phases()[0].name, "extended skyline");
    EXPECT_EQ(result.cube.max_level(), 5);
  }
  EXPECT_EQ(testing::stsc_on_cpu(data, {}).template_name, "stsc");
  EXPECT_EQ(testing::sdsc_on_cpu(data, {}).template_name, "sdsc");
}

TEST(StscSdscTest, EmptyDatasetGivesEmptyCube) {
  const Dataset empty(0, 4, {});
  for (const auto& cube :
       {testing::stsc_on_cpu(empty, {}).cube, testing::sdsc_on_cpu(empty, {.max_level = 2}).cube}) {
    EXPECT_EQ(cube.point_count(), 0u);
    EXPECT_EQ(cube.dims(), 4);
    EXPECT_TRUE(cube.skyline(1).empty());
  }
}

TEST(StscSdscTest, RejectsBadArguments) {
  const Dataset data = generate(datagen::Distribution::independent, 20, 3, 1);
  const Dataset wide = generate(datagen::Distribution::independent, 5, max_skycube_columns + 1, 1);
  for (auto run : {&testing::stsc_on_cpu, &testing::sdsc_on_cpu}) {
    EXPECT_THROW(run(data, {.max_level = 4}), Error);
    EXPECT_THROW(run(data, {.max_level = -1}), Error);
    EXPECT_THROW(run(data, {.threads = -2}), Error);
    try {
      run(wide, {});
      ADD_FAILURE() << "d = " << wide.dims() << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
      EXPECT_NE(std::string(e.what()).find(std::to_string(max_skycube_columns)), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace sextant
