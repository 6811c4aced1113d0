#include "scheduler/chunk_model.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sextant::scheduler {
namespace {

TEST(ChunkCostFit, RecoversTheFixedCostAndTheRateOfExactChunks) {
  ChunkCostFit fit;
  const ChunkCost truth{5e-3, 1e7};
  for (const double n : {4096.0, 8192.0, 131072.0, 16384.0}) fit.add(n, truth.seconds(n));
  const ChunkCost c = fit.cost();
  EXPECT_NEAR(c.fixed_seconds, 5e-3, 1e-9);
  EXPECT_NEAR(c.rate, 1e7, 1e-2);
}

TEST(ChunkCostFit, NeedsTwoClearlyDifferentSizes) {
  ChunkCostFit fit;
  fit.add(1000, 1e-3);
  EXPECT_EQ(fit.cost().rate, 0);  // one chunk
  fit.add(1000, 2e-3);
  fit.add(1100, 1.5e-3);
  EXPECT_EQ(fit.cost().rate, 0);  // sizes within 10%: noise would decide the slope
  fit.add(4000, 4e-3);
  EXPECT_GT(fit.cost().rate, 0);
}

TEST(ChunkCostFit, ALargerChunkThatTookLessTimeIsNoFit) {
  ChunkCostFit fit;
  fit.add(1000, 3e-3);
  fit.add(4000, 2e-3);
  EXPECT_EQ(fit.cost().rate, 0);
}

TEST(ChunkCostFit, TheFixedCostIsNeverNegativeNorAboveTheShortestChunk) {
  ChunkCostFit fit;
  fit.add(1000, 1e-3);  // a line through these crosses n = 0 below 0
  fit.add(3000, 4e-3);
  const ChunkCost c = fit.cost();
  EXPECT_EQ(c.fixed_seconds, 0);
  EXPECT_NEAR(c.rate, 2000 / 3e-3, 1);
}

TEST(ChunkCostFit, RecentChunksWeighMost) {
  ChunkCostFit fit;
  for (int i = 0; i < 10; ++i) {  // a device that became twice as slow half-way through
    const ChunkCost then{0, i < 5 ? 2e6 : 1e6};
    const double n = i % 2 == 0 ? 1000 : 8000;
    fit.add(n, then.seconds(n));
  }
  EXPECT_LT(fit.cost().rate, 1.4e6);
}

TEST(TeamFinishSeconds, ByHand) {
  // Two cores at 1e6/s and a GPU at 1e8/s that pays 10 ms a chunk.
  const std::vector<ChunkCost> team{{0, 1e6}, {0, 1e6}, {0.01, 1e8}};
  // 1e6 items: the cores alone would need 0.5 s; with the GPU (1e6 + 1e8 * 0.01) / 1.02e8.
  EXPECT_NEAR(team_finish_seconds(team, 1e6), 2e6 / 1.02e8, 1e-12);
  // 1e4 items: the cores finish in 5 ms, before the GPU's fixed cost is paid: it takes none.
  EXPECT_NEAR(team_finish_seconds(team, 1e4), 5e-3, 1e-12);
  EXPECT_EQ(team_finish_seconds(team, 0), 0);
  EXPECT_EQ(team_finish_seconds({}, 100), 0);
  // Everyone with a fixed cost: the cheapest starts first.
  const std::vector<ChunkCost> gpus{{0.002, 1e6}, {0.001, 1e6}};
  EXPECT_NEAR(team_finish_seconds(gpus, 500), 0.0015, 1e-12);  // only the second: 1 ms + 0.5 ms
  EXPECT_NEAR(team_finish_seconds(gpus, 3000), (3000 + 3000) / 2e6, 1e-12);
}

}  // namespace
}  // namespace sextant::scheduler
