// Pinning on the real machine: a per-core worker runs on its core; a core-group worker runs an
// OpenMP-parallel hook with one thread per owned core, all inside its cores (no oversubscription).
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

bool all_bound(const Scheduler& s) {
  return std::all_of(s.workers().begin(), s.workers().end(),
                     [&](const WorkerInfo& w) { return s.binding(w.id) == BindResult::bound; });
}

// The processing units this thread may run on.
std::vector<int> affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  std::vector<int> out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  return out;
}

TEST(Binding, PerCoreWorkersRunOnTheirCore) {
  Scheduler s(discover_topology());
  if (!all_bound(s)) GTEST_SKIP() << "the OS refused binding here (restricted cpuset)";
  std::atomic<int> checked{0};
  std::atomic<int> wrong{0};
  SchedulerTeam team(s, TeamMode::cpu_only);
  team.run_tasks(200, [&](std::size_t, int worker) {
    testing::spin_for(std::chrono::microseconds(50));
    if (affinity() != s.workers()[static_cast<std::size_t>(worker)].cores) ++wrong;
    ++checked;
  });
  EXPECT_EQ(checked.load(), 200);
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Binding, CoreGroupWorkersRunOpenMpHooksOnTheirCores) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "libgomp is not built for ThreadSanitizer: its barriers look like data races";
#endif
  SchedulerOptions options;
  options.layout.cpu = CpuWorkers::per_group;
  options.layout.cores_per_group = 0;  // one worker per NUMA node
  Scheduler s(discover_topology(), options);
  if (!all_bound(s)) GTEST_SKIP() << "the OS refused binding here (restricted cpuset)";
  ASSERT_EQ(s.worker_count(DeviceKind::cpu), static_cast<int>(s.topology().numa_nodes.size()));
  std::atomic<int> wrong_team{0};
  std::atomic<int> outside{0};
  Codelet c;
  c.name = "omp-hook";
  c.add("", DeviceKind::cpu, [&](const Chunk&, const WorkerContext& ctx) {
    const std::vector<int>& cores = ctx.info->cores;
#pragma omp parallel num_threads(ctx.threads())
    {
      if (omp_get_num_threads() != ctx.threads()) ++wrong_team;
      const std::vector<int> mine = affinity();
      if (!std::all_of(mine.begin(), mine.end(),
                       [&](int cpu) { return std::find(cores.begin(), cores.end(), cpu) != cores.end(); }))
        ++outside;
    }
  });
  s.parallel_for(64, c, WorkStealingPolicy{1, 1, 1});
  EXPECT_EQ(wrong_team.load(), 0);
  EXPECT_EQ(outside.load(), 0);
}

}  // namespace
}  // namespace sextant::scheduler
