#include "scheduler/team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

// The DeviceTeam shape of templates/skycube/task_team.hpp: one implementation per device kind.
TEST(SchedulerTeam, DeviceFormsRunTheImplementationOfEachWorkersKind) {
  Scheduler s(machine("package:1 core:2 pu:1", 1));
  SchedulerTeam team(s, TeamMode::all_workers);
  std::atomic<int> wrong_kind{0};
  const auto on = [&](DeviceKind expected) {
    return [&, expected](std::size_t, int worker) {
      if (team.kind(worker) != expected) ++wrong_kind;
      testing::spin_for(std::chrono::microseconds(5));
    };
  };
  team.run_tasks(3000, on(DeviceKind::cpu), on(DeviceKind::gpu));
  EXPECT_EQ(wrong_kind.load(), 0);
  // Without a GPU function the GPU worker sits the run out.
  Hits hits(500);
  team.run_tasks(
      500,
      [&](std::size_t task, int worker) {
        if (team.kind(worker) != DeviceKind::cpu) ++wrong_kind;
        hits.add(task);
      },
      nullptr);
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(wrong_kind.load(), 0);
}

TEST(SchedulerTeam, RunRangeCoversEveryItemOnceInChunksPerKind) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1", 1));
  SchedulerTeam team(s, TeamMode::all_workers);
  team.range_policy.min_gpu_chunk = 64;
  constexpr std::size_t n = 20'000;
  Hits hits(n);
  std::atomic<std::size_t> small_gpu_chunks{0};
  team.run_range(
      n, [&](std::size_t begin, std::size_t end, int) { hits.add(begin, end); },
      [&](std::size_t begin, std::size_t end, int) {
        if (end - begin < 64 && end != n) ++small_gpu_chunks;  // the last piece of a range may be short
        hits.add(begin, end);
      });
  EXPECT_EQ(hits.wrong(), 0u);
  Hits cpu_only(n);
  team.run_range(
      n, [&](std::size_t begin, std::size_t end, int) { cpu_only.add(begin, end); }, nullptr);
  EXPECT_EQ(cpu_only.wrong(), 0u);
}

TEST(SchedulerTeam, ForEachWorkerSetsUpEveryWorkerOnceByKind) {
  Scheduler s(machine("package:1 core:3 pu:1", 2));
  SchedulerTeam team(s, TeamMode::all_workers);
  std::vector<int> setups(static_cast<std::size_t>(team.workers()), 0);
  std::vector<DeviceKind> kinds(setups.size(), DeviceKind::cpu);
  team.for_each_worker([&](int w) { ++setups[static_cast<std::size_t>(w)]; },
                       [&](int w) {
                         ++setups[static_cast<std::size_t>(w)];
                         kinds[static_cast<std::size_t>(w)] = DeviceKind::gpu;
                       });
  EXPECT_EQ(setups, std::vector<int>(5, 1));
  EXPECT_EQ(kinds[2], DeviceKind::cpu);
  EXPECT_EQ(kinds[3], DeviceKind::gpu);
  EXPECT_EQ(kinds[4], DeviceKind::gpu);
  EXPECT_THROW(team.for_each_worker([](int) {},
                                    [](int w) {
                                      if (w == 4) throw std::runtime_error("no memory on gpu1");
                                    }),
               std::runtime_error);
  std::vector<int> cpu_setups(5, 0);
  team.for_each_worker([&](int w) { ++cpu_setups[static_cast<std::size_t>(w)]; }, nullptr);
  EXPECT_EQ(cpu_setups, (std::vector<int>{1, 1, 1, 0, 0}));
}

TEST(SchedulerTeam, RetryModeMovesFailedTasksAndUnrecordedRunsStayOutOfTheStatistics) {
  SchedulerOptions options;
  options.faults = FaultInjection::parse("--inject-fault", "worker1@1");
  Scheduler s(machine("package:1 core:2 pu:1"), options);
  SchedulerTeam team(s, TeamMode::cpu_only, FailureMode::retry_elsewhere);
  Hits hits(200);
  team.run_tasks(200, [&](std::size_t task, int) {
    testing::spin_for(std::chrono::microseconds(50));
    hits.add(task);
  });
  EXPECT_EQ(hits.wrong(), 0u);
  const Statistics before = s.statistics();
  EXPECT_EQ(before.total_items(), 200u);
  SchedulerTeam bookkeeping(s, TeamMode::cpu_only);
  bookkeeping.record = false;
  Hits more(300);
  bookkeeping.run_tasks(300, [&](std::size_t task, int) {  // no injected fault: it would propagate
    testing::spin_for(std::chrono::microseconds(20));
    more.add(task);
  });
  EXPECT_EQ(more.wrong(), 0u);
  const Statistics after = s.statistics();
  EXPECT_EQ(after.total_items(), 200u);
  EXPECT_EQ(after.runs, before.runs);
  EXPECT_EQ(after.failures.size(), before.failures.size());
}

}  // namespace
}  // namespace sextant::scheduler
