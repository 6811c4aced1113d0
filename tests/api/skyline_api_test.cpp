// The skyline front door on the CPU (api/skyline.hpp): the calling-thread path, the scheduler
// path on this machine (one or every core) and on a synthetic two-node machine (two workers: the
// points cut into ranges, then the merge), each through the same conformance body; bad arguments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/skyline.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "scheduler/statistics.hpp"
#include "scheduler/topology.hpp"
#include "support/error_of.hpp"
#include "support/skyline_conformance.hpp"
#include "support/window_skyline.hpp"
#include "testing/random_data.hpp"

namespace sextant {
namespace {

SkylineOptions on(const char* devices, int threads = 0, const char* machine = "") {
  SkylineOptions o;
  o.threads = threads;
  if (*devices != '\0') o.devices.devices = parse_devices("devices", devices);
  if (*machine != '\0') o.devices.machine = scheduler::synthetic_topology(machine);
  return o;
}

constexpr const char* two_nodes = "package:2 numa:1 core:2 pu:1";

TEST(Skyline, CallingThreadConforms) {
  testing::expect_small_skylines_conform(SkylineOptions{});
  testing::expect_large_skylines_conform(SkylineOptions{});  // large: the scheduler, every core
}

TEST(Skyline, SchedulerOneCoreConforms) {
  testing::expect_small_skylines_conform(on("cpu", 1));
  testing::expect_large_skylines_conform(on("cpu", 1));
}

TEST(Skyline, SchedulerEveryCoreConforms) {
  testing::expect_small_skylines_conform(on("all"));
  testing::expect_large_skylines_conform(on("cpu"));
}

TEST(Skyline, TwoNodesSplitAndMergeConform) {
  testing::expect_small_skylines_conform(on("all", 0, two_nodes));
  testing::expect_large_skylines_conform(on("numa0,numa1", 0, two_nodes));
  const SkylineResult r = skyline(testing::random_dataset(70000, 4, 0, 21), on("all", 0, two_nodes));
  ASSERT_NE(r.statistics, nullptr);
  EXPECT_GT(r.statistics->total_tasks(), 2u) << "several ranges and the merge";
}

TEST(Skyline, StatisticsOnlyOnTheSchedulerPath) {
  const Dataset data = testing::random_dataset(100, 3, 4, 7);
  EXPECT_EQ(skyline(data).statistics, nullptr);
  EXPECT_NE(skyline(data, on("cpu")).statistics, nullptr);
  EXPECT_EQ(skyline(data).ids, skyline(data, full_mask(3)).ids);
}

TEST(Skyline, MaxColumnsAreNegated) {
  const std::vector<float> values = {1, 1,  //
                                     2, 2,  //
                                     2, 2,  //
                                     0, 3};
  const Dataset min_min(4, 2, values);
  EXPECT_EQ(skyline(min_min).ids, (std::vector<PointId>{0, 3}));
  const Dataset max_max(4, 2, values, {Preference::max, Preference::max});
  EXPECT_EQ(skyline(max_max).ids, (std::vector<PointId>{1, 2, 3}));  // both copies of (2, 2)
}

TEST(Skyline, BadArguments) {
  const Dataset data = testing::random_dataset(10, 3, 4, 7);
  testing::error_of([&] { skyline(data, 0); }, ErrorKind::bad_argument);
  const std::string wide = testing::error_of([&] { skyline(data, 0b1001); }, ErrorKind::bad_argument);
  EXPECT_NE(wide.find("columns 0,3"), std::string::npos) << wide;
  EXPECT_NE(wide.find("0..2"), std::string::npos) << wide;
  SkylineOptions negative;
  negative.threads = -1;
  testing::error_of([&] { skyline(data, negative); }, ErrorKind::bad_argument);
  if (!build::has_cuda) testing::error_of([&] { skyline(data, on("gpu0")); }, ErrorKind::unsupported);
  testing::error_of([&] { skyline(data, on("gpu0", 0, two_nodes)); }, ErrorKind::unsupported);
}

// The prefilter in classify mode (the skycube's extended-skyline phase): it may remove only
// strictly dominated points, so S and S+ \ S stay exact; tie-heavy data makes them differ.
TEST(Skyline, ExtendedSkylineThroughThePrefilterIsExact) {
  for (const int levels : {0, 16}) {
    const Dataset data = testing::random_dataset(40000, 4, levels, 31, 10);
    const std::vector<PointId> sky = testing::window_skyline(data, full_mask(4));
    const std::vector<PointId> extended = testing::window_extended_skyline(data, full_mask(4));
    if (levels > 0) {
      EXPECT_GT(extended.size(), sky.size()) << "ties make S+ larger than S";
    }
    for (const int threads : {1, 2}) {
      SCOPED_TRACE("levels " + std::to_string(levels) + ", threads " + std::to_string(threads));
      cpu::ExtendedSkylineCpu hook{threads};
      const skycube::CuboidOutput split = hook.full_cuboid(data);
      EXPECT_EQ(split.skyline, sky);
      EXPECT_EQ(hook.extended_skyline(data), extended);
    }
  }
}

TEST(Skyline, EmptyDatasetHasAnEmptySkyline) {
  const Dataset empty(0, 3, std::vector<float>{});
  EXPECT_TRUE(skyline(empty).ids.empty());
  EXPECT_TRUE(skyline(empty, on("cpu")).ids.empty());
}

}  // namespace
}  // namespace sextant
