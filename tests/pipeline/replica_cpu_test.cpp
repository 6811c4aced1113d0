// The CPU replica (cpu/pipeline/replica_cpu.hpp) through the replica conformance body, at 1, 3, 8
// and 16 lanes; and what only a CPU replica does: several chunks through one replica.
#include "cpu/pipeline/replica_cpu.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "pipeline/replica_conformance.hpp"

namespace sextant::pipeline {
namespace {

template <class P>
struct MakeCpu {
  cpu::CpuReplica<P> operator()(const Instance<P>& in, const ReplicaOptions& o) const {
    return cpu::CpuReplica<P>(in, o);
  }
};

TEST(CpuReplica, EveryPlanRuleBudgetAndWidthGivesTheSequentialItemsInOrder) {
  for (const std::uint32_t width : {1U, 3U, 8U, 16U})
    testing::every_plan_rule_and_budget(MakeCpu<testing::FanPipeline>{}, width, true, 600);
}

TEST(CpuReplica, ChunksInTheMiddleEmptyAndSingle) {
  testing::chunks_empty_and_single(MakeCpu<testing::FanPipeline>{}, 8);
  MakeCpu<testing::FanPipeline> make;
  EXPECT_THROW(testing::run_replica(make, testing::fan_instance(100, 1, 7), RunRequest{}, 8, 90, 101), Error);
}

TEST(CpuReplica, GainLimitErrorsNameTheNode) {
  testing::gain_limit_errors_name_the_node(MakeCpu<testing::LiarPipeline>{},
                                           MakeCpu<testing::UnevenPipeline>{}, 8);
}

TEST(CpuReplica, OneReplicaRunsManyChunks) {
  const Instance<testing::FanPipeline> in = testing::fan_instance(1000, 2, 9);
  RunRequest r;
  r.sizing = SizingRule::equal;
  ReplicaOptions options;
  options.layout = plan_layout(shape_of<testing::FanPipeline>(in.params), r, 16).layout;
  cpu::CpuReplica<testing::FanPipeline> replica(in, options);
  ChunkOutput<std::uint64_t> out;
  for (std::uint64_t b = 0; b < 1000; b += 97) replica.run(b, std::min<std::uint64_t>(b + 97, 1000), out);
  EXPECT_EQ(out.items, testing::fan_reference(0, 1000, 2, 9));
  EXPECT_EQ(out.counters.chunks, 11U);
}

}  // namespace
}  // namespace sextant::pipeline
