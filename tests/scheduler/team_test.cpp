#include "scheduler/team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <concepts>
#include <functional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using testing::Hits;
using testing::machine;

// The shape of core/task_team.hpp, restated so scheduler tests need no templates/.
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

// The DeviceTeam shape of core/task_team.hpp, restated: a list of variants, each for
// one device kind, and a grain.
struct TestVariant {
  std::string_view name;
  DeviceKind kind = DeviceKind::cpu;
  bool runnable = true;
  std::function<void(std::size_t, std::size_t, int)> fn;
  bool fallback = false;
};
enum class TestGrain { task, range };

TEST(SchedulerTeam, VariantListsRunTheImplementationOfEachWorkersKind) {
  Scheduler s(machine("package:1 core:2 pu:1", 1));
  SchedulerTeam team(s, TeamMode::all_workers);
  std::atomic<int> wrong_kind{0};
  Hits hits(3000);
  const auto on = [&](DeviceKind expected) {
    return [&, expected](std::size_t begin, std::size_t end, int worker) {
      if (end != begin + 1) ++wrong_kind;  // Grain::task: one task at a time
      if (team.kind(worker) != expected) ++wrong_kind;
      hits.add(begin, end);
      testing::spin_for(std::chrono::microseconds(5));
    };
  };
  const std::vector<TestVariant> both{{"c", DeviceKind::cpu, true, on(DeviceKind::cpu)},
                                      {"g", DeviceKind::gpu, true, on(DeviceKind::gpu)}};
  team.run_variants(3000, both, "both", TestGrain::task);
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(wrong_kind.load(), 0);
  // Without a runnable GPU variant the GPU worker sits the run out.
  Hits cpu_hits(500);
  const std::vector<TestVariant> cpu_only{
      {"c", DeviceKind::cpu, true,
       [&](std::size_t begin, std::size_t end, int worker) {
         if (team.kind(worker) != DeviceKind::cpu) ++wrong_kind;
         cpu_hits.add(begin, end);
       }},
      {"g", DeviceKind::gpu, false, [&](std::size_t, std::size_t, int) { ++wrong_kind; }}};
  team.run_variants(500, cpu_only, "cpu-only", TestGrain::task);
  EXPECT_EQ(cpu_hits.wrong(), 0u);
  EXPECT_EQ(wrong_kind.load(), 0);
}

TEST(SchedulerTeam, RangeGrainCoversEveryItemOnceInChunksPerKind) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1", 1));
  SchedulerTeam team(s, TeamMode::all_workers);
  team.range_policy.min_gpu_chunk = 64;
  constexpr std::size_t n = 20'000;
  Hits hits(n);
  const std::vector<TestVariant> both{
      {"c", DeviceKind::cpu, true, [&](std::size_t begin, std::size_t end, int) { hits.add(begin, end); }},
      {"g", DeviceKind::gpu, true, [&](std::size_t begin, std::size_t end, int) { hits.add(begin, end); }}};
  team.run_variants(n, both, "range", TestGrain::range);
  EXPECT_EQ(hits.wrong(), 0u);
  Hits cpu_only(n);
  const std::vector<TestVariant> one{
      {"c", DeviceKind::cpu, true,
       [&](std::size_t begin, std::size_t end, int) { cpu_only.add(begin, end); }}};
  team.run_variants(n, one, "range-cpu", TestGrain::range);
  EXPECT_EQ(cpu_only.wrong(), 0u);
}

TEST(SchedulerTeam, ForEachWorkerSetsUpEveryWorkerOnce) {
  Scheduler s(machine("package:1 core:3 pu:1", 2));
  SchedulerTeam team(s, TeamMode::all_workers);
  std::vector<std::atomic<int>> setups(static_cast<std::size_t>(team.workers()));
  team.for_each_worker([&](int w) { ++setups[static_cast<std::size_t>(w)]; });
  for (const auto& n : setups) EXPECT_EQ(n.load(), 1);
  ASSERT_EQ(setups.size(), 5u);
  EXPECT_EQ(team.kind(2), DeviceKind::cpu);
  EXPECT_EQ(team.kind(3), DeviceKind::gpu);
  EXPECT_EQ(team.kind(4), DeviceKind::gpu);
  EXPECT_THROW(team.for_each_worker([](int w) {
    if (w == 4) throw std::runtime_error("no memory on gpu1");
  }),
               std::runtime_error);
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
