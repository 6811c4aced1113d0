// The cuboid engines kept between calls (cpu/skycube/cuboid_engine.hpp): a hook that dies keeps
// its engine, the next hook gets it back with its buffers, and an engine reused on other data,
// larger or smaller, with other columns and ties, gives the brute-force cuboid; at most
// CuboidPolicy::kept_engines are kept.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "cpu/skycube/cuboid_cpu.hpp"
#include "cpu/skycube/cuboid_engine.hpp"
#include "testing/brute_force_skycube.hpp"
#include "testing/cuboid_conformance.hpp"
#include "testing/random_data.hpp"

namespace sextant {
namespace {

using cpu::detail::CuboidEngine;
using cpu::detail::CuboidPolicy;

// Empties the kept engines, so that each test starts from none.
void drop_kept_engines() {
  while (cpu::detail::kept_engines().first > 0) cpu::detail::take_engine().reset();
}

skycube::CuboidOutput cuboid_with(cpu::ParallelCuboidCpu& hook, const Dataset& data, Mask m) {
  std::vector<PointId> ids(data.size());
  std::iota(ids.begin(), ids.end(), PointId{0});
  skycube::CuboidOutput out;
  hook.compute(skycube::CuboidInput{data, ids, m, false}, out);
  return out;
}

TEST(KeptEngines, AHookThatDiesKeepsItsEngineForTheNextOne) {
  drop_kept_engines();
  const Dataset data = testing::generate_dataset(datagen::Distribution::anticorrelated, 3000, 5, 7);
  const CuboidEngine* first = nullptr;
  {
    cpu::ParallelCuboidCpu hook{2};
    cuboid_with(hook, data, full_mask(5));
    first = &hook.engine.get();
  }
  const auto [count, bytes] = cpu::detail::kept_engines();
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(bytes, first->capacity_bytes());
  EXPECT_GE(bytes, 3000 * sizeof(PointId)) << "the kept engine holds its buffers";

  cpu::ParallelCuboidCpu next{2};
  EXPECT_EQ(&next.engine.get(), first);
  EXPECT_EQ(cpu::detail::kept_engines().first, 0u);
}

// Larger, then smaller data, other dimensions and columns, ties: every run through one engine
// handed from hook to hook equals brute force.
TEST(KeptEngines, AReusedEngineGivesTheBruteForceCuboid) {
  drop_kept_engines();
  using datagen::Distribution;
  struct Case {
    Dataset data;
    Mask m;
  };
  std::vector<Case> cases;
  cases.push_back({testing::generate_dataset(Distribution::anticorrelated, 2500, 6, 41), 0b111111});
  cases.push_back({testing::generate_dataset(Distribution::independent, 400, 3, 42), 0b101});
  cases.push_back({testing::random_dataset(3000, 4, 5, 43), 0b1110});  // few levels, 20% duplicates
  cases.push_back({testing::generate_dataset(Distribution::anticorrelated, 900, 8, 44), 0b10010110});
  cases.push_back({testing::generate_dataset(Distribution::ties, 5000, 7, 45, 2), 0b1111111});
  for (const Case& c : cases) {
    const Dataset& data = c.data;
    std::vector<PointId> all(data.size());
    std::iota(all.begin(), all.end(), PointId{0});
    const skycube::CuboidOutput expected = testing::brute_force_cuboid(data, all, c.m);
    for (const int threads : {1, 3}) {
      cpu::ParallelCuboidCpu hook{threads};
      const skycube::CuboidOutput got = cuboid_with(hook, data, c.m);
      EXPECT_EQ(got.skyline, expected.skyline)
          << data.size() << " x " << data.dims() << ", threads " << threads;
      EXPECT_EQ(got.extended_only, expected.extended_only)
          << data.size() << " x " << data.dims() << ", threads " << threads;
      EXPECT_EQ(cpu::detail::kept_engines().first, 0u) << "the hook holds the only engine";
    }
    EXPECT_EQ(cpu::detail::kept_engines().first, 1u);
  }
}

TEST(KeptEngines, AtMostKeptEnginesAreKept) {
  drop_kept_engines();
  std::vector<std::unique_ptr<CuboidEngine>> engines;
  for (std::size_t i = 0; i < CuboidPolicy::kept_engines + 3; ++i)
    engines.push_back(cpu::detail::take_engine());
  for (auto& engine : engines) cpu::detail::keep_engine(std::move(engine));
  EXPECT_EQ(cpu::detail::kept_engines().first, CuboidPolicy::kept_engines);
  drop_kept_engines();
  EXPECT_EQ(cpu::detail::kept_engines(), (std::pair<std::size_t, std::size_t>{0, 0}));
}

}  // namespace
}  // namespace sextant
