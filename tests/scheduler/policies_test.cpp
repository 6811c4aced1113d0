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
