// Instrumentation (templates/pipeline/profile.hpp) against synthetic pipelines whose gains are known:
// each node's inputs and outputs exactly as a sequential count gives them, its max vector gain where
// it is certain (a node that always emits its limit, a node that emits nothing), times measured.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/pipeline.hpp"
#include "apps/pipelines/synthetic.hpp"
#include "pipeline/app_references.hpp"

namespace sextant::pipeline {
namespace {

TEST(Profile, SyntheticGainsAreMeasuredExactly) {
  apps::synthetic::Config c;
  c.sources = 20000;
  c.gains = {0.5, 3.0, 1.3, 1.0};
  c.limits = {1, 3, 4, 1};
  c.work = {0, 4, 1, 2};
  c.seed = 2;
  PipelineOptions o;
  o.sizing = SizingRule::equal;
  o.cpu_lanes = 8;
  const PipelineProfile p = profile_pipeline(apps::synthetic::make_instance(c), o);
  ASSERT_EQ(p.nodes.size(), 4U);
  const std::vector<std::uint64_t> outputs = testing::synthetic_node_outputs(c);
  std::uint64_t inputs = c.sources;
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(p.nodes[k].inputs, inputs) << k;
    EXPECT_EQ(p.nodes[k].outputs, outputs[k]) << k;
    EXPECT_DOUBLE_EQ(p.nodes[k].g, static_cast<double>(outputs[k]) / static_cast<double>(inputs)) << k;
    EXPECT_GT(p.nodes[k].vectors, 0U);
    EXPECT_GT(p.nodes[k].t, 0.0) << k;
    inputs = outputs[k];
  }
  // The measured gains are near the configured ones (20000 draws).
  EXPECT_NEAR(p.nodes[0].g, 0.5, 0.02);
  EXPECT_NEAR(p.nodes[2].g, 1.3, 0.03);
  // Node 2 always emits 3 and node 4 always 1: every vector's widest lane has that many.
  EXPECT_DOUBLE_EQ(p.nodes[1].g, 3.0);
  EXPECT_DOUBLE_EQ(p.nodes[1].m, 3.0);
  EXPECT_DOUBLE_EQ(p.nodes[3].m, 1.0);
  // A filter of gain 0.5 over 8 lanes: some lane keeps its input in all but 1 / 256 of the vectors.
  EXPECT_DOUBLE_EQ(p.nodes[0].m, 1.0);
  EXPECT_EQ(p.width, 8U);
  EXPECT_EQ(p.time_unit, "ns");
  EXPECT_GT(p.switches, 0U);
}

TEST(Profile, ANodeThatEmitsNothing) {
  apps::synthetic::Config c;
  c.sources = 5000;
  c.gains = {1.0, 0.0, 1.0, 1.0};
  c.limits = {1, 2, 1, 1};
  c.work = {0, 0, 0, 0};
  PipelineOptions o;
  o.sizing = SizingRule::equal;
  const PipelineProfile p = profile_pipeline(apps::synthetic::make_instance(c), o);
  EXPECT_DOUBLE_EQ(p.nodes[0].g, 1.0);
  EXPECT_DOUBLE_EQ(p.nodes[1].g, 0.0);
  EXPECT_DOUBLE_EQ(p.nodes[1].m, 0.0);
  EXPECT_EQ(p.nodes[2].inputs, 0U);
  EXPECT_EQ(p.nodes[2].vectors, 0U);
}

TEST(Profile, PlanSizesEveryRuleAndRanksEveryStrategy) {
  apps::synthetic::Config c;
  c.sources = 4000;
  PipelineOptions o;
  o.queue_budget = 1 << 15;
  o.cpu_lanes = 8;
  const PipelinePlan plan = plan_pipeline(apps::synthetic::make_instance(c), o);
  ASSERT_EQ(plan.sizes.size(), 3U);
  EXPECT_EQ(plan.sizes[0].rule, SizingRule::equal);
  EXPECT_EQ(plan.sizes[2].rule, SizingRule::sqrt);
  for (const QueueSizes& s : plan.sizes) EXPECT_LE(s.bytes(), std::uint64_t{1} << 15);
  EXPECT_EQ(plan.ranking.size(), 8U);
  for (std::size_t i = 1; i < plan.ranking.size(); ++i)
    if (plan.ranking[i].fits == plan.ranking[i - 1].fits) {
      EXPECT_LE(plan.ranking[i - 1].cost, plan.ranking[i].cost);
    }
  // The sqrt sizes follow Lemma 5.2 on the measured gains where no queue was raised.
  const std::vector<double> g = plan.profile.gains();
  const std::vector<double> G = {g[0], g[0] * g[1], g[0] * g[1] * g[2]};
  const std::vector<double> want = lemma_5_2(G, std::vector<std::uint32_t>{8, 8, 8}, 1 << 15);
  for (std::size_t q = 0; q < 3; ++q)
    if (!plan.sizes[2].inflated[q]) {
      EXPECT_NEAR(static_cast<double>(plan.sizes[2].capacity[q]), want[q], 1.0) << q;
    }
}

}  // namespace
}  // namespace sextant::pipeline
