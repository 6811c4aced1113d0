#include "scheduler/team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <concepts>
#include <stdexcept>
#include <vector>

#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using testing::Hits;
using testing::machine;

// The shape of templates/skycube/task_team.hpp, restated so scheduler tests need no templates/.
struct TaskFunctionArchetype {
  void operator()(std::size_t, int) const {}
};
template <class T>
concept TaskTeamShape = requires(T& team, std::size_t count, const TaskFunctionArchetype& fn) {
  { team.workers() } -> std::convertible_to<int>;
  team.run_tasks(count, fn);
};
static_assert(TaskTeamShape<SchedulerTeam>);

TEST(SchedulerTeam, CpuOnlyRunsEveryTaskOnceOnCpuWorkers) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1", 1));
  SchedulerTeam team(s, TeamMode::cpu_only);
  ASSERT_EQ(team.workers(), 4);
  constexpr std::size_t n = 10'000;
  Hits hits(n);
  std::atomic<int> bad_worker{0};
  team.run_tasks(n, [&](std::size_t task, int worker) {
    if (worker < 0 || worker >= team.workers() || team.kind(worker) != DeviceKind::cpu) ++bad_worker;
    hits.add(task);
  });
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(bad_worker.load(), 0);
}

TEST(SchedulerTeam, AllWorkersIncludesGpuHostWorkers) {
  Scheduler s(machine("package:1 core:1 pu:1", 1));
  SchedulerTeam team(s, TeamMode::all_workers);
  ASSERT_EQ(team.workers(), 2);
  EXPECT_EQ(team.kind(1), DeviceKind::gpu);
  Hits hits(2000);
  std::atomic<int> on_gpu{0};
  team.run_tasks(2000, [&](std::size_t task, int worker) {
    if (team.kind(worker) == DeviceKind::gpu) ++on_gpu;
    testing::spin_for(std::chrono::microseconds(5));
    hits.add(task);
  });
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_GT(on_gpu.load(), 0);
}

TEST(SchedulerTeam, PerWorkerScratchNeedsNoLocks) {
  // A worker runs one task at a time: a plain counter per worker adds up exactly.
  Scheduler s(machine("package:2 numa:1 core:3 pu:1"));
  SchedulerTeam team(s, TeamMode::cpu_only);
  std::vector<std::size_t> per_worker(static_cast<std::size_t>(team.workers()), 0);
  constexpr std::size_t n = 50'000;
  team.run_tasks(n,
                 [&](std::size_t task, int worker) { per_worker[static_cast<std::size_t>(worker)] += task; });
  std::size_t sum = 0;
  for (const std::size_t v : per_worker) sum += v;
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(SchedulerTeam, RethrowsTheFirstExceptionAndSkipsTheRest) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  SchedulerTeam team(s, TeamMode::cpu_only);
  std::atomic<std::size_t> ran{0};
  EXPECT_THROW(team.run_tasks(100'000,
                              [&](std::size_t task, int) {
                                ++ran;
                                if (task == 10) throw std::invalid_argument("task 10");
                              }),
               std::invalid_argument);
  EXPECT_LT(ran.load(), 100'000u);
  team.run_tasks(0, [](std::size_t, int) { FAIL(); });
  Hits hits(100);
  team.run_tasks(100, [&](std::size_t task, int) { hits.add(task); });  // still usable
  EXPECT_EQ(hits.wrong(), 0u);
}

TEST(SchedulerTeam, WorkerCountFollowsTheLayout) {
  SchedulerOptions options;
  options.layout.cpu = CpuWorkers::per_group;
  options.layout.cores_per_group = 2;
  Scheduler s(machine("package:2 numa:1 core:4 pu:1"), options);
  SchedulerTeam team(s, TeamMode::cpu_only);
  EXPECT_EQ(team.workers(), 4);
  EXPECT_EQ(team.info(0).threads(), 2);
}

}  // namespace
}  // namespace sextant::scheduler
