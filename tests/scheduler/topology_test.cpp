#include "scheduler/topology.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "core/error.hpp"

namespace sextant::scheduler {
namespace {

TEST(Topology, RealMachineHasAtLeastOneCore) {
  const Topology t = discover_topology();
  ASSERT_GE(t.numa_nodes.size(), 1u);
  EXPECT_GE(t.core_count(), 1);
  EXPECT_LE(t.core_count(), static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_FALSE(t.synthetic);
}

TEST(Topology, SyntheticTwoSocketsGroupCoresByNode) {
  const Topology t = synthetic_topology("package:2 numa:1 core:4 pu:2");
  ASSERT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_TRUE(t.synthetic);
  EXPECT_EQ(t.numa_nodes[0].cores, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(t.numa_nodes[1].cores, (std::vector<int>{8, 10, 12, 14}));
}

TEST(Topology, BadSyntheticDescriptionIsAnError) {
  EXPECT_THROW(synthetic_topology("sockets two"), Error);
}

}  // namespace
}  // namespace sextant::scheduler
