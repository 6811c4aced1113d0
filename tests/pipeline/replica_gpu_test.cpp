// The GPU's block replicas (gpu/pipeline/replica_gpu.cuh) through the replica conformance body
// (replica_conformance.hpp), on the test pipelines instantiated in test_pipelines_gpu.cu. Skips
// without CUDA or without a GPU.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "pipeline/replica_conformance.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "tests/gpu/gpu_test_support.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/pipeline/pipeline_gpu.hpp"
#endif

namespace sextant::pipeline {
namespace {

#if SEXTANT_HAS_CUDA
template <class P>
struct MakeGpu {
  gpu::PipelineGpu<P> operator()(const Instance<P>& in, const ReplicaOptions& o) const {
    return gpu::PipelineGpu<P>(0, in, o);
  }
};
#endif

TEST(GpuReplica, EveryPlanRuleAndBudgetGivesTheSequentialItems) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  // Enough sources for several claims per block and partial vectors at every queue.
  testing::every_plan_rule_and_budget(MakeGpu<testing::FanPipeline>{}, policy::gpu_lanes, false, 40000);
#endif
}

TEST(GpuReplica, ChunksInTheMiddleEmptyAndSingle) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  testing::chunks_empty_and_single(MakeGpu<testing::FanPipeline>{}, policy::gpu_lanes);
#endif
}

TEST(GpuReplica, GainLimitErrorsNameTheNode) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  testing::gain_limit_errors_name_the_node(MakeGpu<testing::LiarPipeline>{},
                                           MakeGpu<testing::UnevenPipeline>{}, policy::gpu_lanes);
#endif
}

// A chunk whose outputs outgrow the first output buffer is run again with the count it reported.
TEST(GpuReplica, OutputsBeyondTheFirstEstimate) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  MakeGpu<testing::FanPipeline> make;
  const auto in = testing::fan_instance(200000, 3, 4);  // about 2.7 outputs per source
  const auto out = testing::run_replica(make, in, RunRequest{}, policy::gpu_lanes, 0, 200000, true);
  EXPECT_EQ(out.items, testing::fan_reference(0, 200000, 3, 4));
#endif
}

}  // namespace
}  // namespace sextant::pipeline
