#include "templates/skycube/quad_tree.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "cpu/skycube/quad_tree_cpu.hpp"
#include "support/quad_tree_conformance.hpp"

namespace sextant::skycube {
namespace {

TEST(QuadTree, SerialBuilder) {
  testing::run_quad_tree_conformance(
      [](const Dataset& data, std::span<const PointId> ids) { return QuadTree(data, ids); });
}

TEST(QuadTree, CpuBuilder) {
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    testing::run_quad_tree_conformance([threads](const Dataset& data, std::span<const PointId> ids) {
      return cpu::QuadTreeCpu{threads}.quad_tree(data, ids);
    });
  }
}

TEST(QuadTree, RejectsTooManyColumns) {
  const Dataset wide = testing::random_dataset(3, max_skycube_columns + 1, 0, 1);
  EXPECT_THROW(QuadTree(wide, testing::all_ids(wide)), Error);
}

TEST(QuadTree, LabelInferenceByHand) {
  // q below the median, p above: q strictly better. Same half, q below p's quartile: better.
  const PathLabel p{0b01, 0b01, 0b00};
  const PathLabel q{0b00, 0b11, 0b11};
  // Column 0: medians differ (q 0, p 1) -> q better. Column 1: same half (0), quartile q 1 vs
  // p 0 -> q worse.
  EXPECT_EQ(better_columns(q, p), 0b01u);
  EXPECT_EQ(worse_columns(q, p), 0b10u);
  // Same half and quarter: the octile decides.
  const PathLabel a{0b1, 0b1, 0b0};
  const PathLabel b{0b1, 0b1, 0b1};
  EXPECT_EQ(better_columns(a, b), 1u);
  EXPECT_EQ(worse_columns(a, b), 0u);
  // Different quarters: octile bits are not comparable and must be ignored.
  const PathLabel c{0b1, 0b0, 0b1};
  const PathLabel e{0b1, 0b1, 0b0};
  EXPECT_EQ(better_columns(c, e), 1u);  // by the quartile
  EXPECT_EQ(better_columns(e, c), 0u);
}

}  // namespace
}  // namespace sextant::skycube
