// Queue sizing (templates/pipeline/sizing.hpp) against numbers worked out by hand: Lemma 5.2 on three
// queues, its rounding, the inflation of a queue below its minimum safe size and the re-division of
// the rest, the equal and Mercator rules, the budget error; and the merge plan syntax.
#include "templates/pipeline/sizing.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/error_of.hpp"
#include "templates/pipeline/merge_plan.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/replica_layout.hpp"

namespace sextant::pipeline {
namespace {

// Four nodes; queues after nodes 1, 2, 3 hold items of 4, 8 and 16 bytes; gain limits 1, 2, 32;
// average gains 1, 4, 1/16, so G = 1, 4, 0.25.
PipelineShape shape() {
  PipelineShape s;
  s.names = {"a", "b", "c", "d"};
  s.gain_limits = {1, 2, 32, 1};
  s.gain_kinds.assign(4, GainKind::at_most);
  s.output_bytes = {4, 8, 16, 4};
  s.input_bytes = 4;
  return s;
}
const std::vector<double> gains = {1.0, 4.0, 1.0 / 16, 1.0};

TEST(Sizing, QueueSpecsOfAPlan) {
  auto q = queue_specs(shape(), MergePlan::unmerged(4), 8, gains);
  ASSERT_EQ(q.size(), 3U);
  EXPECT_EQ(q[0].min_items, 8U);    // 8 lanes x 1
  EXPECT_EQ(q[1].min_items, 16U);   // 8 x 2
  EXPECT_EQ(q[2].min_items, 256U);  // 8 x 32
  EXPECT_DOUBLE_EQ(q[1].gain, 4.0);
  EXPECT_DOUBLE_EQ(q[2].gain, 0.25);
  // 1+2,3,4: the merged group's queue needs 8 x 1 x 2; its gain is G_2 = 4.
  q = queue_specs(shape(), MergePlan::parse("1+2,3,4", 4), 8, gains);
  ASSERT_EQ(q.size(), 2U);
  EXPECT_EQ(q[0].after, 1U);
  EXPECT_EQ(q[0].min_items, 16U);
  EXPECT_DOUBLE_EQ(q[0].gain, 4.0);
  EXPECT_TRUE(queue_specs(shape(), MergePlan::fully_merged(4), 8, gains).empty());
}

TEST(Sizing, Lemma52ByHand) {
  // sqrt(b_j G_j) = 2, sqrt(32), 2; c_i = sqrt(G_i / b_i) * 12000 / (4 + sqrt(32)).
  const std::vector<double> c =
      lemma_5_2(std::vector<double>{1, 4, 0.25}, std::vector<std::uint32_t>{4, 8, 16}, 12000);
  ASSERT_EQ(c.size(), 3U);
  EXPECT_NEAR(c[0], 621.3203435596427, 1e-9);
  EXPECT_NEAR(c[1], 878.6796564403576, 1e-9);
  EXPECT_NEAR(c[2], 155.33008588991066, 1e-9);
  EXPECT_NEAR(c[0] * 4 + c[1] * 8 + c[2] * 16, 12000, 1e-6);
}

TEST(Sizing, SqrtRoundsDownAndInflatesBelowTheMinimum) {
  // With 1 lane every queue is safe: the rounded Lemma 5.2 sizes.
  QueueSizes s =
      size_queues(SizingRule::sqrt, 12000, queue_specs(shape(), MergePlan::unmerged(4), 1, gains), 1);
  EXPECT_EQ(s.capacity, (std::vector<std::uint64_t>{621, 878, 155}));
  EXPECT_EQ(s.bytes(), 621U * 4 + 878 * 8 + 155 * 16);
  EXPECT_EQ(s.inflated, (std::vector<bool>{false, false, false}));
  // With 8 lanes queue 3 needs 256 items (4096 bytes): raised, and the other two share 7904 bytes:
  // c = sqrt(G / b) * 7904 / (2 + sqrt(32)) = 516.14, 729.93.
  s = size_queues(SizingRule::sqrt, 12000, queue_specs(shape(), MergePlan::unmerged(4), 8, gains), 8);
  EXPECT_EQ(s.capacity, (std::vector<std::uint64_t>{516, 729, 256}));
  EXPECT_EQ(s.inflated, (std::vector<bool>{false, false, true}));
  EXPECT_LE(s.bytes(), 12000U);
  // Queues with gain 0 get nothing from the rule: their minimum.
  const std::vector<double> dead = {1.0, 0.0, 1.0, 1.0};
  s = size_queues(SizingRule::sqrt, 12000, queue_specs(shape(), MergePlan::unmerged(4), 8, dead), 8);
  EXPECT_EQ(s.capacity[1], 16U);
  EXPECT_EQ(s.capacity[2], 256U);
  EXPECT_EQ(s.capacity[0], (12000U - 16 * 8 - 256 * 16) / 4);
}

TEST(Sizing, EqualAndMercatorByHand) {
  // Equal: 4000 bytes each = 1000, 500, 250 items; 250 < 256 is raised and the others share the
  // remaining 7904 bytes: 988 and 494.
  QueueSizes s =
      size_queues(SizingRule::equal, 12000, queue_specs(shape(), MergePlan::unmerged(4), 8, {}), 8);
  EXPECT_EQ(s.capacity, (std::vector<std::uint64_t>{988, 494, 256}));
  // Mercator with a budget: the same items everywhere, 12000 / 28 = 428.
  s = size_queues(SizingRule::mercator, 12000, queue_specs(shape(), MergePlan::unmerged(4), 8, {}), 8);
  EXPECT_EQ(s.capacity, (std::vector<std::uint64_t>{428, 428, 428}));
  // Mercator's default: 4 x 8 lanes x the largest gain limit (32) = 1024 items per queue.
  s = size_queues(SizingRule::mercator, 0, queue_specs(shape(), MergePlan::unmerged(4), 8, {}), 8);
  EXPECT_EQ(s.capacity, (std::vector<std::uint64_t>{1024, 1024, 1024}));
  EXPECT_EQ(s.budget, 1024U * 28);
}

TEST(Sizing, ABudgetBelowTheMinimumNamesEveryQueue) {
  // Minimum: 8 * 4 + 16 * 8 + 256 * 16 = 4256 bytes.
  EXPECT_NO_THROW(
      size_queues(SizingRule::equal, 4256, queue_specs(shape(), MergePlan::unmerged(4), 8, {}), 8));
  const std::string e = testing::error_of(
      [] { size_queues(SizingRule::sqrt, 4255, queue_specs(shape(), MergePlan::unmerged(4), 8, gains), 8); },
      ErrorKind::bad_argument);
  EXPECT_NE(e.find("--queue-budget = '4255'"), std::string::npos) << e;
  EXPECT_NE(e.find(">= 4256 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("the queue after node 3 (c) needs 4096 bytes (8 lanes x 32 outputs per input x 16 bytes)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("the queue after node 1 (a) needs 32 bytes"), std::string::npos) << e;
}

TEST(Sizing, NoBudgetIsTheDefaultOrTheMinimumWhereWideVectorsNeedMore) {
  // 8 lanes: 4256 bytes of minimum fit the default budget.
  QueueSizes s = size_queues(SizingRule::sqrt, 0, queue_specs(shape(), MergePlan::unmerged(4), 8, gains), 8);
  EXPECT_EQ(s.budget, policy::default_queue_budget);
  // 128 lanes (a GPU's): 128 * 4 + 256 * 8 + 4096 * 16 = 68096 bytes > 64 KiB, the minimum sizes.
  s = size_queues(SizingRule::sqrt, 0, queue_specs(shape(), MergePlan::unmerged(4), 128, gains), 128);
  EXPECT_EQ(s.budget, 68096U);
  EXPECT_EQ(s.capacity, (std::vector<std::uint64_t>{128, 256, 4096}));
  // A named budget below the minimum stays an error.
  EXPECT_THROW(
      size_queues(SizingRule::sqrt, 65536, queue_specs(shape(), MergePlan::unmerged(4), 128, gains), 128),
      Error);
}

TEST(Sizing, ParseRules) {
  EXPECT_EQ(parse_sizing("--sizing", "sqrt"), SizingRule::sqrt);
  EXPECT_EQ(parse_sizing("--sizing", "equal"), SizingRule::equal);
  EXPECT_EQ(parse_sizing("--sizing", "mercator"), SizingRule::mercator);
  const std::string e = testing::error_of([] { parse_sizing("--sizing", "cube"); }, ErrorKind::bad_argument);
  EXPECT_NE(e.find("equal, mercator or sqrt"), std::string::npos) << e;
}

TEST(Sizing, SwitchRateBound) {
  const auto q = queue_specs(shape(), MergePlan::unmerged(4), 1, gains);
  // R' = 2 G_1 / c_1 + 2 G_2 / c_2 + 2 G_3 / c_3.
  EXPECT_NEAR(switch_rate_bound(std::vector<std::uint64_t>{100, 200, 50}, q),
              2.0 / 100 + 8.0 / 200 + 0.5 / 50, 1e-12);
}

TEST(Layout, OffsetsBoundsAndGroups) {
  const QueueSizes s =
      size_queues(SizingRule::equal, 12000, queue_specs(shape(), MergePlan::parse("1,2+3,4", 4), 8, {}), 8);
  const ReplicaLayout l = make_layout(shape(), MergePlan::parse("1,2+3,4", 4), 8, s);
  EXPECT_EQ(l.groups, 3U);
  EXPECT_EQ(l.group_first[1], 1U);
  EXPECT_EQ(l.group_last[1], 2U);
  EXPECT_EQ(l.bound[2], 64U);  // 2 x 32
  EXPECT_EQ(l.capacity[1], 0U);
  EXPECT_EQ(l.capacity[0], s.capacity[0]);
  EXPECT_EQ(l.offset[2] % 16, 0U);
  EXPECT_GE(l.offset[2], l.capacity[0] * 4);
  EXPECT_EQ(l.queue_bytes, s.bytes());
}

TEST(MergePlans, ParseFormatAndEnumerate) {
  EXPECT_EQ(MergePlan::parse("1,2+3,4", 4).to_string(), "1,2+3,4");
  EXPECT_EQ(MergePlan::parse("none", 3).to_string(), "1,2,3");
  EXPECT_EQ(MergePlan::parse("1+2+3", 3), MergePlan::fully_merged(3));
  EXPECT_EQ(MergePlan::parse("1", 1).groups().size(), 1U);
  const auto all = MergePlan::all(4);
  ASSERT_EQ(all.size(), 8U);
  EXPECT_EQ(all.front(), MergePlan::unmerged(4));
  EXPECT_EQ(all.back(), MergePlan::fully_merged(4));
  for (const char* bad :
       {"", "1,2", "1,2,3,4,5", "2,1,3,4", "1,,2,3,4", "1+3,2,4", "1;2;3;4", "1,2,3,4,", "x"}) {
    const std::string e = testing::error_of([&] { MergePlan::parse(bad, 4); }, ErrorKind::bad_argument);
    EXPECT_NE(e.find("--merge"), std::string::npos) << bad << ": " << e;
  }
}

}  // namespace
}  // namespace sextant::pipeline
