// The merge model (templates/pipeline/merge_model.hpp): the paper's Table 2 (BLAST, model column,
// equal queues) recomputed from its Table 1, a small case by hand, and the ranking.
#include "templates/pipeline/merge_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "templates/pipeline/merge_plan.hpp"

namespace sextant::pipeline {
namespace {

// Paper 003, Table 1 (BLAST, 192 KB equal): g, m, t, p per node.
const std::vector<NodeModel> table1 = {
    {0.379, 1, 0.23, 0.01}, {1.920, 5, 0.70, 0.03}, {0.0331, 1, 0.24, 0.1}, {9e-6, 1, 2.47, 0.01}};

TEST(MergeModel, ReproducesTable2FromTable1) {
  // Table 2, "Model Result (Equal)". Table 1 gives t and p to two digits, so within 1%.
  const std::pair<const char*, double> table2[] = {{"1,2,3,4", 0.758}, {"1,2+3,4", 1.023}, {"1+2,3+4", 2.934},
                                                   {"1+2,3,4", 1.198}, {"1,2,3+4", 2.494}, {"1+2+3,4", 2.194},
                                                   {"1,2+3+4", 5.642}, {"1+2+3+4", 14.468}};
  for (const auto& [plan, want] : table2)
    EXPECT_NEAR(predicted_cost(table1, MergePlan::parse(plan, 4)), want, 0.01 * want) << plan;
}

TEST(MergeModel, RanksAsThePaper) {
  PipelineShape shape;
  shape.names = {"seed match", "seed enumeration", "small extension", "ungapped extension"};
  shape.gain_limits = {1, 16, 1, 1};
  shape.gain_kinds.assign(4, GainKind::at_most);
  shape.output_bytes = {8, 8, 8, 16};
  const auto ranking = rank_plans(table1, shape, 128, 0);
  ASSERT_EQ(ranking.size(), 8U);
  // Section 7.3: the top two are "leave all unmerged" and "merge the middle two".
  EXPECT_EQ(ranking[0].plan.to_string(), "1,2,3,4");
  EXPECT_EQ(ranking[1].plan.to_string(), "1,2+3,4");
  EXPECT_EQ(ranking.back().plan.to_string(), "1+2+3+4");
  // Minimum safe bytes of the unmerged plan: 128 x (1 x 8 + 16 x 8 + 1 x 8).
  EXPECT_EQ(ranking[0].min_queue_bytes, 128U * 144);
  // A budget that only the plans merging node 2 forward fit.
  const auto tight = rank_plans(table1, shape, 128, 128 * 20);
  EXPECT_TRUE(tight.front().fits);
  EXPECT_FALSE(tight.back().fits);
  for (std::size_t i = 1; i < tight.size(); ++i)
    if (tight[i].fits) {
      EXPECT_TRUE(tight[i - 1].fits);
    }
}

TEST(MergeModel, SmallCaseByHand) {
  // Two nodes: g = 2, 0.5; m = 3, 1; t = 10, 4; p = 1, 2.
  const std::vector<NodeModel> n = {{2, 3, 10, 1}, {0.5, 1, 4, 2}};
  // Unmerged: t1 + G1 p1 + G1 t2 + G2 p2 = 10 + 2 + 8 + 1 * 2 = 22.
  EXPECT_DOUBLE_EQ(predicted_cost(n, MergePlan::parse("1,2", 2)), 22.0);
  // Merged: t1 + m1 t2 + G2 p2 = 10 + 12 + 2 = 24.
  EXPECT_DOUBLE_EQ(predicted_cost(n, MergePlan::parse("1+2", 2)), 24.0);
  // Sequential lanes (a core): node 2 runs per output, g1 = 2 times a vector: 10 + 8 + 2 = 20.
  EXPECT_DOUBLE_EQ(predicted_cost(n, MergePlan::parse("1+2", 2), false), 20.0);
  EXPECT_DOUBLE_EQ(predicted_cost(n, MergePlan::parse("1,2", 2), false), 22.0);
}

}  // namespace
}  // namespace sextant::pipeline
