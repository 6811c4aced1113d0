// Scheduling overhead on this machine's real topology (pinned workers):
//   * per task: batches and TaskTeam runs of empty tasks, next to OpenMP schedule(dynamic, 1);
//   * per run: parallel_for of 10^6 empty items, and of one item (wake-up round trip);
//   * relative: parallel_for of 10^6 items with real work per item, where "overhead" is the share
//     of worker time not spent in implementations, 1 - sum(busy) / (wall * workers).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"

namespace {

using namespace sextant;
using namespace sextant::scheduler;

Scheduler& machine() {
  static Scheduler s(discover_topology());
  return s;
}

// Idle workers poll 100 us before they block (SchedulerOptions::idle_spin; off by default).
Scheduler& machine_with_spin() {
  static Scheduler s(discover_topology(), [] {
    SchedulerOptions o;
    o.idle_spin = std::chrono::microseconds(100);
    return o;
  }());
  return s;
}

Codelet empty_codelet() {
  Codelet c;
  c.name = "empty";
  c.add("", DeviceKind::cpu, [](const Chunk& chunk, const WorkerContext&) {
    std::size_t end = chunk.end;
    benchmark::DoNotOptimize(end);
  });
  return c;
}

// `units` x 3 dependent multiply-adds per item: about 4.5 ns per unit on a 2.1 GHz Xeon (10 units ~ 45
// ns, 100 units ~ 0.45 us per item; BM_SerialWork measures it).
Codelet work_codelet(int units) {
  Codelet c;
  c.name = "work" + std::to_string(units);
  c.add("", DeviceKind::cpu, [units](const Chunk& chunk, const WorkerContext&) {
    std::uint64_t x = chunk.begin;
    const auto steps = static_cast<std::uint64_t>(units) * 3;
    for (std::size_t i = chunk.begin; i < chunk.end; ++i)
      for (std::uint64_t k = 0; k < steps; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    benchmark::DoNotOptimize(x);
  });
  return c;
}

void per_task(benchmark::State& state, std::size_t tasks) {
  state.counters["time_per_task"] =
      benchmark::Counter(static_cast<double>(tasks),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<std::int64_t>(tasks) * state.iterations());
}

void BM_BatchEmptyTasks(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Codelet c = empty_codelet();
  std::vector<Task> tasks(n);
  for (std::size_t i = 0; i < n; ++i) tasks[i] = {i, 1, &c};
  for (auto _ : state) machine().run(tasks, WorkStealingPolicy{});
  per_task(state, n);
}
BENCHMARK(BM_BatchEmptyTasks)->Arg(1'000)->Arg(100'000)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_TeamEmptyTasks(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  SchedulerTeam team(machine(), TeamMode::cpu_only);
  for (auto _ : state) team.run_tasks(n, [](std::size_t task, int) { benchmark::DoNotOptimize(task); });
  per_task(state, n);
}
BENCHMARK(BM_TeamEmptyTasks)->Arg(1'000)->Arg(100'000)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_OmpDynamicEmptyTasks(benchmark::State& state) {
  const auto n = static_cast<std::ptrdiff_t>(state.range(0));
  const int threads = static_cast<int>(machine().workers().size());
  for (auto _ : state) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::ptrdiff_t task = 0; task < n; ++task) benchmark::DoNotOptimize(task);
  }
  per_task(state, static_cast<std::size_t>(n));
}
BENCHMARK(BM_OmpDynamicEmptyTasks)->Arg(1'000)->Arg(100'000)->UseRealTime()->Unit(benchmark::kMicrosecond);

template <class Policy>
void BM_ParallelForEmpty(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Codelet c = empty_codelet();
  std::size_t chunks = 0;
  for (auto _ : state) chunks = machine().parallel_for(n, c, Policy{}).statistics.total_tasks();
  state.counters["chunks"] = static_cast<double>(chunks);
  state.SetItemsProcessed(static_cast<std::int64_t>(n) * state.iterations());
}
BENCHMARK(BM_ParallelForEmpty<WorkStealingPolicy>)
    ->Arg(1)
    ->Arg(1'000'000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ParallelForEmpty<ThroughputModelPolicy>)
    ->Arg(1)
    ->Arg(1'000'000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// A run of one empty item: the round trip (wake the workers, run, everyone leaves, wake the caller).
void BM_RunLatency(benchmark::State& state) {
  Scheduler& s = state.range(0) != 0 ? machine_with_spin() : machine();
  const Codelet c = empty_codelet();
  for (auto _ : state) s.parallel_for(1, c, WorkStealingPolicy{});
}
BENCHMARK(BM_RunLatency)->ArgName("spin")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

// 10^6 items of range(0) work units each; range(1) = items per chunk (0: the policy decides).
template <class Policy>
void BM_ParallelForWork(benchmark::State& state) {
  constexpr std::size_t n = 1'000'000;
  const Codelet c = work_codelet(static_cast<int>(state.range(0)));
  Policy policy{};
  if constexpr (std::is_same_v<Policy, WorkStealingPolicy>) {
    policy.cpu_chunk = static_cast<std::size_t>(state.range(1));
  }
  double busy = 0;
  double worker_time = 0;
  std::size_t chunks = 0;
  RunReport last;
  for (auto _ : state) {
    last = machine().parallel_for(n, c, policy);
    for (const WorkerStats& w : last.statistics.workers) busy += w.busy_seconds;
    worker_time += last.statistics.wall_seconds * static_cast<double>(last.statistics.workers.size());
    chunks = last.statistics.total_tasks();
  }
  if (std::getenv("SEXTANT_BENCH_REPORT") != nullptr) std::printf("%s\n", report(last, true).c_str());
  state.counters["overhead_%"] = 100.0 * (1.0 - busy / worker_time);
  state.counters["chunks"] = static_cast<double>(chunks);
  state.SetItemsProcessed(static_cast<std::int64_t>(n) * state.iterations());
}
BENCHMARK(BM_ParallelForWork<WorkStealingPolicy>)
    ->Args({10, 100})
    ->Args({10, 1000})
    ->Args({10, 0})
    ->Args({100, 100})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParallelForWork<ThroughputModelPolicy>)
    ->Args({10, 0})
    ->Args({100, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same work serially on one thread: the reference for the parallel runs above.
void BM_SerialWork(benchmark::State& state) {
  constexpr std::size_t n = 1'000'000;
  const Codelet c = work_codelet(static_cast<int>(state.range(0)));
  const WorkerInfo info;
  const WorkerContext ctx{&info, {}};
  for (auto _ : state) c.variants.front().run(Chunk{0, 0, n}, ctx);
  state.SetItemsProcessed(static_cast<std::int64_t>(n) * state.iterations());
}
BENCHMARK(BM_SerialWork)->Arg(10)->Arg(100)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
