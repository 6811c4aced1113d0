#include "scheduler/policies.hpp"

#include <gtest/gtest.h>

namespace sextant::scheduler {
namespace {

ChunkRequest request(DeviceKind kind, std::size_t range, double rate = 0, double total = 0,
                     std::size_t unclaimed = 0) {
  ChunkRequest r;
  r.kind = kind;
  r.range_size = range;
  r.unclaimed = unclaimed;
  r.own_remaining = range;
  r.participants = 4;
  r.rate = rate;
  r.total_rate = total;
  return r;
}

TEST(WorkStealingPolicy, GpuChunksAreLargeCpuChunksSmall) {
  const WorkStealingPolicy p;
  const std::size_t cpu = p.chunk(request(DeviceKind::cpu, 64'000));
  const std::size_t gpu = p.chunk(request(DeviceKind::gpu, 64'000));
  EXPECT_EQ(cpu, 1000u);  // 64000 / (16 * 4)
  EXPECT_EQ(gpu, 8000u);
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 3)), 1u);
  WorkStealingPolicy fixed;
  fixed.cpu_chunk = 7;
  fixed.gpu_chunk = 70;
  EXPECT_EQ(fixed.chunk(request(DeviceKind::cpu, 64'000)), 7u);
  EXPECT_EQ(fixed.chunk(request(DeviceKind::gpu, 64'000)), 70u);
  EXPECT_EQ(p.steal({DeviceKind::cpu, DeviceKind::cpu, 9, 0, 0}), 5u);
  EXPECT_EQ(p.steal({DeviceKind::cpu, DeviceKind::cpu, 1, 0, 0}), 1u);
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 0, 0, 0}), 1.0);
}

TEST(ThroughputModelPolicy, UnmeasuredWorkersProbe) {
  const ThroughputModelPolicy p;
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 256'000)), 1000u);  // 256000 / (64 * 4)
  EXPECT_EQ(p.chunk(request(DeviceKind::gpu, 256'000)), 8000u);  // 256000 / (8 * 4)
}

TEST(ThroughputModelPolicy, ALoneWorkerTakesTheRestOfItsRange) {
  const ThroughputModelPolicy p;
  for (const DeviceKind kind : {DeviceKind::cpu, DeviceKind::gpu}) {
    ChunkRequest r = request(kind, 256'000, 1e6, 1e6, 200'000);
    r.participants = 1;
    r.own_remaining = 200'000;
    EXPECT_EQ(p.chunk(r), 200'000u);
    r.rate = r.total_rate = 0;  // unmeasured: no probe either
    EXPECT_EQ(p.chunk(r), 200'000u);
  }
}

TEST(ThroughputModelPolicy, ProbesUntilEveryWorkerIsMeasured) {
  const ThroughputModelPolicy p;
  ChunkRequest r = request(DeviceKind::cpu, 256'000, 1e6, 2e6, 200'000);
  r.unmeasured = 1;
  EXPECT_EQ(p.chunk(r), 1000u);
}

TEST(ThroughputModelPolicy, ChunkIsAFractionOfTheFairShareOfWhatIsLeft) {
  ThroughputModelPolicy p;
  p.min_chunk_seconds = 0;
  // A GPU with 3/4 of the machine's throughput takes 3/8 of what is left (spread 2).
  EXPECT_EQ(p.chunk(request(DeviceKind::gpu, 1'000'000, 3e6, 4e6, 800'000)), 300'000u);
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 1'000'000, 1e6 / 3, 4e6, 800'000)), 33'333u);
  // Near the end chunks shrink to the minimum.
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 1'000'000, 1e6, 4e6, 3)), 1u);
  p.min_gpu_chunk = 100;
  EXPECT_EQ(p.chunk(request(DeviceKind::gpu, 1'000'000, 3e6, 4e6, 3)), 100u);
}

TEST(ThroughputModelPolicy, ChunksLastAtLeastTheMinimumTime) {
  ThroughputModelPolicy p;
  p.min_chunk_seconds = 1e-3;
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 1'000'000, 1e6, 4e6, 10)), 1000u);
}

TEST(ThroughputModelPolicy, StealsAndSharesFollowRates) {
  const ThroughputModelPolicy p;
  EXPECT_EQ(p.steal({DeviceKind::gpu, DeviceKind::cpu, 1000, 9e6, 1e6}), 900u);
  EXPECT_EQ(p.steal({DeviceKind::cpu, DeviceKind::gpu, 1000, 1e6, 9e6}), 100u);
  EXPECT_EQ(p.steal({DeviceKind::cpu, DeviceKind::cpu, 1000, 0, 1e6}), 500u);  // unknown: half
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 5e6, 1e6, 4e6}), 5e6);
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 0, 1e6, 4e6}), 4e6);  // mean of its kind
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 0, 1e6, 0}), 1e6);    // else of the other kind
  EXPECT_EQ(p.initial_weight({DeviceKind::cpu, 0, 0, 0}), 1.0);      // nothing known: equal
}

TEST(ThroughputModelPolicy, AnAssumedGpuRatioSetsSharesUntilRatesAreRemembered) {
  ThroughputModelPolicy p;
  p.gpu_weight = 64;
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 0, 0, 0}), 64.0);  // nothing known
  EXPECT_EQ(p.initial_weight({DeviceKind::cpu, 0, 0, 0}), 1.0);
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 0, 1e6, 0}), 64e6);   // from the CPUs' rate
  EXPECT_EQ(p.initial_weight({DeviceKind::cpu, 0, 0, 64e6}), 1e6);   // from the GPUs' rate
  EXPECT_EQ(p.initial_weight({DeviceKind::gpu, 0, 1e6, 4e6}), 4e6);  // its kind's own rate wins
}

ThroughputModelPolicy shared_pool_policy() {  // the pipeline family's numbers
  ThroughputModelPolicy p;
  p.shared_pool = true;
  p.min_cpu_chunk = 4096;
  p.min_gpu_chunk = 1 << 18;
  p.min_chunk_seconds = 2e-3;
  return p;
}

TEST(ThroughputModelPolicy, SharedPoolProbesAreSmallOnEveryRange) {
  const ThroughputModelPolicy p = shared_pool_policy();
  // Large range: the kind's minimum chunk, not a share of the range (a core's share could outlast
  // a GPU's whole run).
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 1 << 26)), 4096u);
  EXPECT_EQ(p.chunk(request(DeviceKind::gpu, 1 << 26)), std::size_t{1} << 18);
  // Small range: a share of it, not the minimum chunk (which would hand one device everything).
  EXPECT_EQ(p.chunk(request(DeviceKind::cpu, 9632)), 37u);   // 9632 / (64 * 4)
  EXPECT_EQ(p.chunk(request(DeviceKind::gpu, 9632)), 301u);  // 9632 / (8 * 4)
  EXPECT_EQ(p.chunk(request(DeviceKind::gpu, 5)), 1u);
}

TEST(ThroughputModelPolicy, SharedPoolChunksNeverOutlastWhatTheTeamNeedsForTheRest) {
  const ThroughputModelPolicy p = shared_pool_policy();
  // A core at 3 M/s beside a GPU: the team needs 10e6 / 6.6e9 s for the rest; the core's minimum
  // chunk (4096, 2 ms = 6000) would outlast it, so it takes 3e6 * 10e6 / 6.6e9 = 4545.
  ChunkRequest core = request(DeviceKind::cpu, 1 << 26, 3e6, 6.6e9, 10'000'000);
  core.elapsed = 1;
  EXPECT_EQ(p.chunk(core), 4545u);
  // Early in a run with much left: 2 ms of its rate (its share would be 13.6e6, 4.5 s).
  core.unclaimed = 60'000'000'000;
  core.elapsed = 0;
  EXPECT_NEAR(static_cast<double>(p.chunk(core)), 6000, 1);
}

TEST(ThroughputModelPolicy, SharedPoolChunksGrowWithTheRun) {
  const ThroughputModelPolicy p = shared_pool_policy();
  // A GPU at 1e9/s with 6e7 left and a fair share of ~2.9e7: early on, 2 ms of its rate; later, as
  // long as the run has lasted; at most the share.
  ChunkRequest gpu = request(DeviceKind::gpu, 1 << 26, 1e9, 1.045e9, 60'000'000);
  gpu.elapsed = 5e-4;
  EXPECT_NEAR(static_cast<double>(p.chunk(gpu)), 2e6, 1);
  gpu.elapsed = 1e-2;
  EXPECT_NEAR(static_cast<double>(p.chunk(gpu)), 1e7, 1);
  gpu.elapsed = 1;
  EXPECT_EQ(p.chunk(gpu), 28'708'133u);  // 6e7 * (1e9 / 1.045e9) / 2
}

TEST(ThroughputModelPolicy, SharedPoolChunksDoubleUntilTheCostIsFitted) {
  const ThroughputModelPolicy p = shared_pool_policy();
  // A GPU whose first chunk (2^18) took 5 ms: 5.2e7/s so far, which would give it 2 ms of that;
  // it takes twice its last chunk instead, so that two sizes show its cost per item.
  ChunkRequest gpu = request(DeviceKind::gpu, 1 << 28, 5.2e7, 5.5e7, 250'000'000);
  gpu.previous_chunk = 1 << 18;
  gpu.elapsed = 5e-3;
  EXPECT_EQ(p.chunk(gpu), std::size_t{1} << 19);
}

TEST(ThroughputModelPolicy, SharedPoolFittedChunksFollowTheTeamsFinish) {
  const ThroughputModelPolicy p = shared_pool_policy();
  // Fitted: 0.25 ms a chunk and 1e10/s beyond; the team would finish what is left at T = 25 ms.
  ChunkRequest gpu = request(DeviceKind::gpu, 1 << 28, 2e9, 2.5e9, 250'000'000);
  gpu.fixed_seconds = 0.25e-3;
  gpu.marginal_rate = 1e10;
  gpu.finish_seconds = 25e-3;
  gpu.elapsed = 40e-3;
  // Its part of the finish is 1e10 * 24.75 ms items; half of it (spread 2).
  EXPECT_EQ(p.chunk(gpu), 123'750'000u);
  // Near the end its part, 1e10 * 5.75 ms, is less than 32 fixed costs' worth (8e7): all of it.
  gpu.finish_seconds = 6e-3;
  EXPECT_EQ(p.chunk(gpu), 57'500'000u);
  // The others finish before its fixed cost is paid: nothing.
  gpu.finish_seconds = 0.2e-3;
  EXPECT_EQ(p.chunk(gpu), 0u);
  // Its part is under one item (the last item, rounded): still one, or nobody would take it.
  gpu.finish_seconds = 0.25e-3 + 0.5e-10;
  EXPECT_EQ(p.chunk(gpu), 1u);
  // Early in the run a chunk lasts at most `growth` (8) times the run so far ...
  gpu.finish_seconds = 25e-3;
  gpu.elapsed = 1e-3;
  EXPECT_EQ(p.chunk(gpu), 80'000'000u);
  // ... and while a GPU's cost is not fitted yet, min_chunk_seconds (2 ms).
  gpu.unfitted = 1;
  EXPECT_EQ(p.chunk(gpu), 20'000'000u);
}

TEST(ThroughputModelPolicy, SharedPoolLoneWorkerTakesEverything) {
  const ThroughputModelPolicy p = shared_pool_policy();
  ChunkRequest r = request(DeviceKind::cpu, 1 << 20);
  r.participants = 1;
  EXPECT_EQ(p.chunk(r), std::size_t{1} << 20);
}

// A user policy only needs the concept's members.
struct FixedPolicy {
  static constexpr std::string_view name = "fixed";
  static constexpr bool uses_rates = false;
  std::size_t chunk(const ChunkRequest&) const { return 3; }
  std::size_t steal(const StealRequest&) const { return 1; }
  double initial_weight(const WeightRequest&) const { return 1; }
};
static_assert(SchedulingPolicy<FixedPolicy>);
static_assert(!SchedulingPolicy<int>);

}  // namespace
}  // namespace sextant::scheduler
