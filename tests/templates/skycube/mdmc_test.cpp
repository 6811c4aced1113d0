#include "templates/skycube/mdmc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "cpu/omp_team.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"
#include "cpu/skycube/mdmc_variants.hpp"
#include "cpu/skycube/quad_tree_cpu.hpp"
#include "cpu/skycube/reference_skycube.hpp"
#include "support/cpu_entries.hpp"
#include "support/nba.hpp"
#include "testing/brute_force_skycube.hpp"
#include "testing/random_data.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant::skycube {
namespace {

using testing::brute_force_extended_skyline_size;

SkycubeResult run_mdmc(const Dataset& data, int max_level, int threads, const MdmcCpuOptions& options = {},
                       const MdmcPolicy& policy = {}) {
  cpu::ExtendedSkylineCpu extended{threads};
  cpu::QuadTreeCpu tree{threads};
  cpu::OmpTeam team(threads);
  return mdmc(data, max_level, extended, tree, MdmcCpu(options), team, policy);
}

// Through the public entry: the CPU extended skyline hook, OmpTeam, MdmcCpu.
const testing::SkycubeRunner runner{"mdmc", [](const Dataset& data, int max_level, int threads) {
                                      SkycubeOptions options;
                                      options.kind = TemplateKind::mdmc;
                                      options.max_level = max_level;
                                      options.threads = threads;
                                      return testing::mdmc_on_cpu(data, options).cube;
                                    }};

TEST(Mdmc, Conformance) {
  testing::run_conformance(runner);
}

// The deeper label filters settle more before the refine; the result must not change.
TEST(Mdmc, ConformanceWithDeeperFilters) {
  for (int levels : {2, 3}) {
    const testing::SkycubeRunner deeper{"mdmc filter_levels=" + std::to_string(levels),
                                        [levels](const Dataset& data, int max_level, int threads) {
                                          return run_mdmc(data, max_level, threads, {levels}).cube;
                                        }};
    testing::run_conformance(deeper, {2});
  }
}

// Every registered CPU variant (cpu/skycube/mdmc_variants.hpp) this machine can run, through the
// same conformance body; the ones it cannot run are named, so a log shows what was covered.
template <class Hook>
void variant_conformance() {
  if (!Hook::can_run()) {
    std::cout << "[          ] variant " << Hook::name << ": not on this CPU (or SEXTANT_SIMD)\n";
    return;
  }
  const testing::SkycubeRunner variant{"mdmc variant " + std::string(Hook::name),
                                       [](const Dataset& data, int max_level, int threads) {
                                         cpu::ExtendedSkylineCpu extended{threads};
                                         cpu::QuadTreeCpu tree{threads};
                                         cpu::OmpTeam team(threads);
                                         return mdmc(data, max_level, extended, tree, Hook{}, team).cube;
                                       }};
  testing::run_conformance(variant);
}

TEST(Mdmc, EveryVariantConforms) {
  []<class... Hooks>(std::tuple<Hooks...>*) { (variant_conformance<Hooks>(), ...); }(
      static_cast<MdmcCpuVariants*>(nullptr));
}

TEST(Mdmc, TieHeavyLarge) {
  testing::run_tie_heavy(runner);
}

TEST(Mdmc, Nba) {
  testing::run_nba(runner, 2);
}

TEST(Mdmc, SerialTeamAndTinyChunks) {
  const Dataset data = testing::random_dataset(400, 5, 4, 3);
  cpu::ExtendedSkylineCpu extended{1};
  cpu::QuadTreeCpu tree{1};
  SerialTeam team;
  const SkycubeResult result = mdmc(data, 5, extended, tree, MdmcCpu{}, team, MdmcPolicy{1000, 1});
  testing::expect_same_skycube(result.cube, reference_skycube(data));
}

TEST(Mdmc, ReportsPhasesAndExtendedSkylineSize) {
  const Dataset data = testing::random_dataset(500, 4, 0, 9);
  const SkycubeResult result = run_mdmc(data, 4, 2);
  EXPECT_EQ(result.template_name, "mdmc");
  EXPECT_EQ(result.extended_skyline_size, brute_force_extended_skyline_size(data));
  std::vector<std::string> names;
  for (const auto& phase : result.phases.phases()) names.push_back(phase.name);
  EXPECT_EQ(names, (std::vector<std::string>{"extended skyline", "quad tree", "filter+refine", "hashcube"}));
}

// Ties that the path labels cannot see (all points of interest share a leaf) and two points q1,
// q2 with the same le mask against p but different eq masks. A memo keyed by le alone takes
// whichever comes first as representative of both and loses the other's subspaces.
//
// Columns 0, 1: p = (1, 1), the "q"s near it; fillers (10 + k, 10 + k, -k) keep every pivot away
// from them (so their labels are equal) and are in S+ thanks to column 2, but never dominate p
// in a subspace containing column 0 or 1.
Dataset memo_key_dataset(const std::vector<std::vector<float>>& near_points) {
  std::vector<float> v;
  for (const auto& row : near_points) v.insert(v.end(), row.begin(), row.end());
  for (int k = 0; k < 100; ++k) {
    const float f = static_cast<float>(k);
    v.insert(v.end(), {10 + f, 10 + f, -f});
  }
  return Dataset(v.size() / 3, 3, v);
}

void expect_matches_reference(const Dataset& data) {
  for (int threads : {1, 2}) {
    const HashCube cube = run_mdmc(data, 3, threads).cube;
    testing::expect_same_skycube(cube, reference_skycube(data));
  }
}

TEST(Mdmc, MemoIsNotKeyedByLeAlone) {
  // q1 (id 0) ties p on columns 0 and 1 and is worse on 2: le = {0,1}, eq = {0,1}, lt = {}:
  // it dominates p nowhere. q2 (id 1) has the same le but is strictly better on column 0: it
  // dominates p in {0} and {0,1}. q1 comes first in leaf order (same leaf, smaller id); an
  // le-keyed memo would skip q2 and keep p (id 2) in the skylines of {0} and {0,1}.
  const Dataset first = memo_key_dataset({{1, 1, 2}, {0.5f, 1, 2}, {1, 1, 1}});
  expect_matches_reference(first);
  const HashCube cube = run_mdmc(first, 3, 1).cube;
  for (Mask m : {Mask{1}, Mask{3}}) {
    const auto skyline = cube.skyline(m);
    EXPECT_EQ(std::count(skyline.begin(), skyline.end(), PointId{2}), 0) << "subspace " << m;
  }

  // Order-independent variant: q1 = (0.5, 1) and q2 = (1, 0.5) both have le = {0,1} against p =
  // (1, 1) but lt = {0} and {1}: whichever an le-keyed memo sees first hides the other.
  const Dataset second = memo_key_dataset({{0.5f, 1, 2}, {1, 0.5f, 2}, {1, 1, 1}});
  expect_matches_reference(second);
  const HashCube cube2 = run_mdmc(second, 3, 1).cube;
  for (Mask m : {Mask{1}, Mask{2}, Mask{3}}) {
    const auto skyline = cube2.skyline(m);
    EXPECT_EQ(std::count(skyline.begin(), skyline.end(), PointId{2}), 0) << "subspace " << m;
  }
}

TEST(Mdmc, HeavyTiesAndDuplicatesAllLevels) {
  for (int d : {3, 6, 7}) {
    const Dataset data = testing::random_dataset(700, d, 3, 40 + static_cast<std::uint64_t>(d), 25);
    for (int max_level = 1; max_level <= d; ++max_level) {
      SCOPED_TRACE("d=" + std::to_string(d) + " max_level=" + std::to_string(max_level));
      testing::expect_same_skycube(run_mdmc(data, max_level, 2).cube, reference_skycube(data, max_level));
    }
  }
}

// Wide bitmaps: subspace masks with many bits above the sixth (multi-word submask patterns).
TEST(Mdmc, HighDimensional) {
  for (const auto& [n, d, levels] : {std::tuple{120, 13, 3}, std::tuple{40, 16, 0}}) {
    const Dataset data =
        testing::random_dataset(static_cast<std::size_t>(n), d, levels, 90 + static_cast<std::uint64_t>(d));
    SCOPED_TRACE("d=" + std::to_string(d));
    testing::expect_same_skycube(run_mdmc(data, d, 2).cube, reference_skycube(data));
    testing::expect_same_skycube(run_mdmc(data, 5, 2).cube, reference_skycube(data, 5));
  }
}

TEST(MdmcCpu, RejectsBadFilterLevels) {
  EXPECT_THROW(MdmcCpu(MdmcCpuOptions{0}), Error);
  EXPECT_THROW(MdmcCpu(MdmcCpuOptions{4}), Error);
  EXPECT_NO_THROW(MdmcCpu(MdmcCpuOptions{3}));
}

TEST(Mdmc, RejectsBadArguments) {
  const Dataset data = testing::random_dataset(10, 3, 0, 1);
  cpu::ExtendedSkylineCpu extended{1};
  cpu::QuadTreeCpu tree{1};
  SerialTeam team;
  EXPECT_THROW(mdmc(data, 0, extended, tree, MdmcCpu{}, team), Error);
  EXPECT_THROW(mdmc(data, 4, extended, tree, MdmcCpu{}, team), Error);
  const Dataset wide = testing::random_dataset(2, max_skycube_columns + 1, 0, 1);
  EXPECT_THROW(mdmc(wide, 1, extended, tree, MdmcCpu{}, team), Error);
}

TEST(MdmcCpu, PublicEntryValidates) {
  const Dataset data = testing::random_dataset(10, 3, 0, 1);
  SkycubeOptions options;
  options.max_level = 4;
  EXPECT_THROW(testing::mdmc_on_cpu(data, options), Error);
  options.max_level = -1;
  EXPECT_THROW(testing::mdmc_on_cpu(data, options), Error);
  options.max_level = 0;
  options.threads = -2;
  EXPECT_THROW(testing::mdmc_on_cpu(data, options), Error);
  const Dataset wide = testing::random_dataset(2, max_skycube_columns + 1, 0, 1);
  try {
    testing::mdmc_on_cpu(wide);
    ADD_FAILURE() << "d > max_skycube_columns accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("d"), std::string::npos);
  }
}

TEST(MdmcCpu, EmptyDataset) {
  const Dataset empty(0, 4, std::vector<float>{});
  SkycubeOptions options;
  options.max_level = 2;
  const SkycubeResult result = testing::mdmc_on_cpu(empty, options);
  EXPECT_EQ(result.cube.point_count(), 0u);
  EXPECT_EQ(result.cube.dims(), 4);
  EXPECT_EQ(result.cube.max_level(), 2);
  EXPECT_TRUE(result.cube.skyline(1).empty());
}

TEST(MdmcCpu, PublicEntryDefaultsToFullCubeOnEveryCore) {
  const Dataset data = testing::random_dataset(800, 6, 5, 77);
  const SkycubeResult result = testing::mdmc_on_cpu(data);
  EXPECT_EQ(result.template_name, "mdmc");
  testing::expect_same_skycube(result.cube, reference_skycube(data));
}

}  // namespace
}  // namespace sextant::skycube
