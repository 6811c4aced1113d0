#include "scheduler/worker.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using testing::machine;

TEST(Workers, OnePerCoreGroupedByNodeThenOnePerGpu) {
  const auto workers = plan_workers(machine("package:2 numa:1 core:3 pu:1", 2, 1), {});
  ASSERT_EQ(workers.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(workers[static_cast<std::size_t>(i)].id, i);
  EXPECT_EQ(workers[0].device, (DeviceId{DeviceKind::cpu, 0}));
  EXPECT_EQ(workers[3].device, (DeviceId{DeviceKind::cpu, 1}));
  EXPECT_EQ(workers[3].package, 1);
  EXPECT_EQ(workers[3].threads(), 1);
  EXPECT_EQ(workers[6].kind, DeviceKind::gpu);
  EXPECT_EQ(workers[6].device, (DeviceId{DeviceKind::gpu, 0}));
  EXPECT_EQ(workers[7].gpu_ordinal, 1);
  EXPECT_EQ(workers[7].numa_node, 1);
  EXPECT_EQ(workers[7].cores, (std::vector<int>{3, 4, 5}));  // the host thread stays on its node
  EXPECT_EQ(workers[7].threads(), 1);
}

TEST(Workers, CoreGroupsOwnSeveralCoresAndNeverCrossNodes) {
  WorkerLayout layout;
  layout.cpu = CpuWorkers::per_group;
  layout.cores_per_group = 3;
  const auto groups = plan_workers(machine("package:2 numa:1 core:4 pu:1"), layout);
  ASSERT_EQ(groups.size(), 4u);  // 3 + 1 per node
  EXPECT_EQ(groups[0].threads(), 3);
  EXPECT_EQ(groups[1].threads(), 1);
  EXPECT_EQ(groups[2].cores, (std::vector<int>{4, 5, 6}));
  layout.cores_per_group = 0;  // a whole node
  const auto nodes = plan_workers(machine("package:2 numa:1 core:4 pu:1"), layout);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].threads(), 4);
  layout.cores_per_group = -1;
  EXPECT_THROW(plan_workers(machine("package:1 core:1 pu:1"), layout), Error);
}

TEST(Workers, SelectionPicksNodesAndGpus) {
  const Topology t = machine("package:2 numa:1 core:2 pu:1", 2);
  WorkerLayout layout;
  layout.devices = parse_devices("--devices", "numa1,gpu1");
  const auto workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(workers[0].numa_node, 1);
  EXPECT_EQ(workers[2].gpu_ordinal, 1);
  layout.devices = parse_devices("--devices", "cpu");
  EXPECT_EQ(plan_workers(t, layout).size(), 4u);
  layout.devices = parse_devices("--devices", "gpu0");
  EXPECT_EQ(plan_workers(t, layout).size(), 1u);
}

TEST(Workers, CoreLimitSpreadsOverTheSelectedNodes) {
  const Topology t = machine("package:2 numa:1 core:4 pu:1");
  WorkerLayout layout;
  layout.cpu_cores = 3;
  const auto workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 3u);  // two on numa0, one on numa1: the first cores of each
  EXPECT_EQ(workers[0].cores, (std::vector<int>{0}));
  EXPECT_EQ(workers[1].cores, (std::vector<int>{1}));
  EXPECT_EQ(workers[2].cores, (std::vector<int>{4}));
  layout.devices = parse_devices("--devices", "numa1");
  EXPECT_EQ(plan_workers(t, layout).size(), 3u);  // all three on the one node named
  layout.cpu = CpuWorkers::per_group;
  layout.cores_per_group = 0;
  const auto groups = plan_workers(t, layout);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].threads(), 3);
  layout.cpu_cores = 100;  // more than there are: every selected core
  EXPECT_EQ(plan_workers(t, layout)[0].threads(), 4);
  layout.cpu_cores = -1;
  EXPECT_THROW(plan_workers(t, layout), Error);
}

TEST(Workers, GpuHostThreadsGetACoreOfTheirOwn) {
  const Topology t = machine("package:2 numa:1 core:2 pu:1", 2, 1);  // both GPUs on numa1
  WorkerLayout layout;
  layout.gpu_own_core = true;
  auto workers = plan_workers(t, layout);
  // numa1 gives its last core to gpu0 and keeps one CPU worker; gpu1 then shares the node.
  ASSERT_EQ(workers.size(), 5u);
  EXPECT_EQ(workers[2].cores, (std::vector<int>{2}));
  EXPECT_EQ(workers[3].cores, (std::vector<int>{3}));  // gpu0
  EXPECT_EQ(workers[4].cores, (std::vector<int>{2, 3}));
  // With a core limit, the GPUs take cores the limit left free first.
  layout.cpu_cores = 2;
  workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 4u);
  EXPECT_EQ(workers[1].cores, (std::vector<int>{2}));  // numa1's CPU worker
  EXPECT_EQ(workers[2].cores, (std::vector<int>{3}));  // gpu0: the free core
  EXPECT_EQ(workers[3].cores, (std::vector<int>{2, 3}));
  // A GPU alone: its node's first core.
  layout = {};
  layout.gpu_own_core = true;
  layout.devices = parse_devices("--devices", "gpu1");
  workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0].cores, (std::vector<int>{2}));
}

TEST(Workers, GpuHostWorkersCanOwnSeveralCores) {
  const Topology t = machine("package:1 numa:1 core:8 pu:1", 2, 0);  // both GPUs on numa0
  WorkerLayout layout;
  layout.gpu_own_core = true;
  layout.gpu_cores = 3;
  auto workers = plan_workers(t, layout);
  // Every core has a CPU worker at first: gpu0 takes 7, 6, 5 and gpu1 takes 4, 3, 2.
  ASSERT_EQ(workers.size(), 4u);
  EXPECT_EQ(workers[0].cores, (std::vector<int>{0}));
  EXPECT_EQ(workers[1].cores, (std::vector<int>{1}));
  EXPECT_EQ(workers[2].cores, (std::vector<int>{5, 6, 7}));
  EXPECT_EQ(workers[3].cores, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(workers[2].threads(), 3);
  EXPECT_FALSE(workers[2].shares_cores);
  // With a core limit the free cores go first.
  layout.cpu_cores = 6;
  workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 4u);
  EXPECT_EQ(workers[2].cores, (std::vector<int>{5, 6, 7}));  // free 6 and 7, then CPU core 5
  EXPECT_EQ(workers[3].cores, (std::vector<int>{2, 3, 4}));
  // The CPU workers keep at least one core: gpu1 gets three of the four it asks for.
  layout.cpu_cores = 0;
  layout.gpu_cores = 4;
  workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(workers[0].cores, (std::vector<int>{0}));
  EXPECT_EQ(workers[1].cores, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(workers[2].cores, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(workers[2].threads(), 3);
  layout.gpu_cores = 0;
  EXPECT_THROW(plan_workers(t, layout), Error);
}

TEST(Workers, GpuHostWorkersCanTakeTheSpareCoresOfTheirNode) {
  Topology t = synthetic_topology("package:2 numa:1 core:6 pu:1");
  add_gpus(t, {{0, 0, std::size_t{1} << 30, "fake"},
               {1, 1, std::size_t{1} << 30, "fake"},
               {2, 0, std::size_t{1} << 30, "fake"}});  // gpu0, gpu2 on numa0; gpu1 on numa1
  WorkerLayout layout;
  layout.gpu_own_core = true;
  layout.gpu_cores = 2;
  layout.gpu_spare_cores = true;
  // Only GPUs compute: each takes its two cores, then the rest of its node is dealt round-robin.
  layout.devices = parse_devices("--devices", "gpu0,gpu1,gpu2");
  auto workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(workers[0].gpu_ordinal, 0);
  EXPECT_EQ(workers[0].cores, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(workers[1].gpu_ordinal, 1);
  EXPECT_EQ(workers[1].cores, (std::vector<int>{6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(workers[2].gpu_ordinal, 2);
  EXPECT_EQ(workers[2].cores, (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(workers[1].threads(), 6);
  // A core limit bounds every core owned: 9 = the six own cores and three spare ones.
  layout.cpu_cores = 9;
  workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(workers[0].cores, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(workers[1].cores, (std::vector<int>{6, 7, 8}));
  EXPECT_EQ(workers[2].cores, (std::vector<int>{2, 3, 5}));
  // CPU workers on every core: nothing is spare, the GPUs take their two from the CPU workers.
  layout.cpu_cores = 0;
  layout.devices = parse_devices("--devices", "all");
  workers = plan_workers(t, layout);
  std::size_t owned = 0;
  for (const WorkerInfo& w : workers) {
    if (w.kind == DeviceKind::gpu) {
      EXPECT_EQ(w.cores.size(), 2u);
    }
    owned += w.cores.size();
  }
  EXPECT_EQ(owned, 12u);
  // Off (the default): a GPU alone keeps its two.
  layout.gpu_spare_cores = false;
  layout.devices = parse_devices("--devices", "gpu1");
  workers = plan_workers(t, layout);
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0].cores, (std::vector<int>{6, 7}));
}

TEST(Workers, SeveralHostWorkersPerGpu) {
  WorkerLayout layout;
  layout.gpu_workers = 2;
  layout.gpu_own_core = true;
  const auto workers = plan_workers(machine("package:1 core:4 pu:1", 1, 0), layout);
  ASSERT_EQ(workers.size(), 4u);  // two CPU workers, two for gpu0 on a core each
  EXPECT_EQ(workers[2].device, (DeviceId{DeviceKind::gpu, 0}));
  EXPECT_EQ(workers[3].device, (DeviceId{DeviceKind::gpu, 0}));
  EXPECT_EQ(workers[2].cores, (std::vector<int>{3}));
  EXPECT_EQ(workers[3].cores, (std::vector<int>{2}));
  layout.gpu_workers = 0;
  EXPECT_THROW(plan_workers(machine("package:1 core:1 pu:1", 1), layout), Error);
}

TEST(Workers, SelectingMissingDevicesIsAClearError) {
  WorkerLayout layout;
  layout.devices = parse_devices("--devices", "gpu0");
  try {
    plan_workers(machine("package:1 core:2 pu:1"), layout);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no such GPU"), std::string::npos) << e.what();
  }
  layout.devices = parse_devices("--devices", "numa3");
  EXPECT_THROW(plan_workers(machine("package:1 core:2 pu:1"), layout), Error);
}

TEST(Workers, VictimOrderTriesTheSameNodeFirst) {
  const auto workers = plan_workers(machine("package:2 numa:1 core:4 pu:1"), {});
  EXPECT_EQ(victim_order(workers, 1), (std::vector<int>{2, 3, 0, 4, 5, 6, 7}));
  EXPECT_EQ(victim_order(workers, 6), (std::vector<int>{7, 4, 5, 0, 1, 2, 3}));
}

TEST(Workers, VictimOrderPrefersTheSamePackageWithinANode) {
  // One NUMA node spanning two packages: the package decides.
  const auto workers = plan_workers(machine("package:2 core:2 pu:1"), {});
  ASSERT_EQ(workers.size(), 4u);
  EXPECT_EQ(victim_order(workers, 0), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(victim_order(workers, 1), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(victim_order(workers, 2), (std::vector<int>{3, 0, 1}));
  // Two NUMA nodes per package: own node, then the package's other node, then the other package.
  const auto deep = plan_workers(machine("package:2 numa:2 core:2 pu:1"), {});
  ASSERT_EQ(deep.size(), 8u);
  EXPECT_EQ(victim_order(deep, 0), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(victim_order(deep, 5), (std::vector<int>{4, 6, 7, 0, 1, 2, 3}));
}

TEST(Workers, GpuWorkersStealNearTheirNodeFirst) {
  const auto workers = plan_workers(machine("package:2 numa:1 core:2 pu:1", 1, 1), {});
  ASSERT_EQ(workers.size(), 5u);
  EXPECT_EQ(victim_order(workers, 4), (std::vector<int>{2, 3, 0, 1}));
  EXPECT_EQ(victim_order(workers, 2), (std::vector<int>{3, 4, 0, 1}));
}

}  // namespace
}  // namespace sextant::scheduler
