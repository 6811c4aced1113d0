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
  EXPECT_GE(t.packages, 1);
  EXPECT_LE(t.core_count(), static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_FALSE(t.synthetic);
  EXPECT_TRUE(t.gpus.empty());
}

TEST(Topology, SyntheticTwoSocketsGroupCoresByNode) {
  const Topology t = synthetic_topology("package:2 numa:1 core:4 pu:2");
  ASSERT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_TRUE(t.synthetic);
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.numa_nodes[0].cores, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(t.numa_nodes[1].cores, (std::vector<int>{8, 10, 12, 14}));
  EXPECT_EQ(t.numa_nodes[0].core_packages, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(t.numa_nodes[1].core_packages, (std::vector<int>{1, 1, 1, 1}));
}

TEST(Topology, PackagesWithoutNumaLevelShareOneNode) {
  const Topology t = synthetic_topology("package:2 core:2 pu:1");
  ASSERT_EQ(t.numa_nodes.size(), 1u);
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.numa_nodes[0].core_packages, (std::vector<int>{0, 0, 1, 1}));
}

TEST(Topology, BadSyntheticDescriptionIsAnError) {
  EXPECT_THROW(synthetic_topology("sockets two"), Error);
}

TEST(Topology, GpusAreAddedSortedAndValidated) {
  Topology t = synthetic_topology("package:2 numa:1 core:2 pu:1");
  add_gpus(t, {{1, 1, 1000, "b"}, {0, -1, 0, "a"}});
  ASSERT_EQ(t.gpu_count(), 2);
  EXPECT_EQ(t.gpus[0].ordinal, 0);
  EXPECT_EQ(t.gpus[1].numa_node, 1);
  EXPECT_THROW(add_gpus(t, {{0, 0, 0, ""}}), Error);                 // ordinal already there
  EXPECT_THROW(add_gpus(t, {{2, 0, 0, ""}, {2, 0, 0, ""}}), Error);  // duplicate in the list
  EXPECT_THROW(add_gpus(t, {{3, 2, 0, ""}}), Error);                 // no NUMA node 2
  EXPECT_THROW(add_gpus(t, {{-1, 0, 0, ""}}), Error);
  EXPECT_EQ(t.gpu_count(), 2);
}

TEST(Topology, BindingIsANoOpOnSyntheticTopologies) {
  const Topology t = synthetic_topology("package:2 core:2 pu:1");
  const int pus[] = {0, 1};
  EXPECT_EQ(bind_current_thread(t, pus), BindResult::skipped);
}

TEST(Topology, BindingOnTheRealMachineBindsOrReportsFailure) {
  const Topology t = discover_topology();
  const int pu = t.numa_nodes.front().cores.front();
  std::thread([&] {
    EXPECT_NE(bind_current_thread(t, std::span<const int>(&pu, 1)), BindResult::skipped);
  }).join();
  EXPECT_EQ(bind_current_thread(t, {}), BindResult::skipped);
}

}  // namespace
}  // namespace sextant::scheduler
