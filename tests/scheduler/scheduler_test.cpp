#include "scheduler/scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::Hits;
using testing::machine;
using testing::spin_for;

Codelet cpu_codelet(std::string name, TaskFunction fn) {
  Codelet c;
  c.name = std::move(name);
  c.add("", DeviceKind::cpu, std::move(fn));
  return c;
}

// The same sum and per-item coverage whatever the machine shape and the policy.
class ParallelForShapes : public ::testing::TestWithParam<const char*> {};

TEST_P(ParallelForShapes, CoversEveryItemExactlyOnceAndSumsDeterministically) {
  Scheduler s(machine(GetParam()));
  constexpr std::size_t n = 100'003;
  Hits hits(n);
  std::atomic<std::uint64_t> sum{0};
  const Codelet c = cpu_codelet("sum", [&](const Chunk& chunk, const WorkerContext& ctx) {
    EXPECT_EQ(ctx.kind(), DeviceKind::cpu);
    std::uint64_t local = 0;
    for (std::size_t i = chunk.begin; i < chunk.end; ++i) local += i;
    hits.add(chunk.begin, chunk.end);
    sum += local;
  });
  const RunReport a = s.parallel_for(n, c);  // ThroughputModelPolicy
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(sum.load(), std::uint64_t{n} * (n - 1) / 2);
  EXPECT_EQ(a.statistics.total_items(), n);
  EXPECT_EQ(a.policy, "throughput-model");

  Hits again(n);
  const Codelet d = cpu_codelet(
      "cover", [&](const Chunk& chunk, const WorkerContext&) { again.add(chunk.begin, chunk.end); });
  const RunReport b = s.parallel_for(n, d, WorkStealingPolicy{});
  EXPECT_EQ(again.wrong(), 0u);
  EXPECT_EQ(b.statistics.total_items(), n);
  EXPECT_EQ(b.policy, "work-stealing");
}

INSTANTIATE_TEST_SUITE_P(Machines, ParallelForShapes,
                         ::testing::Values("package:1 core:1 pu:1", "package:1 core:2 pu:1",
                                           "package:2 numa:1 core:4 pu:1", "package:4 numa:2 core:3 pu:2"));

TEST(Scheduler, RealMachineRunsPinnedWorkers) {
  Scheduler s(discover_topology());
  EXPECT_EQ(s.worker_count(DeviceKind::cpu), s.topology().core_count());
  EXPECT_EQ(s.worker_count(DeviceKind::gpu), 0);
  for (const WorkerInfo& w : s.workers()) EXPECT_NE(s.binding(w.id), BindResult::skipped);
  constexpr std::size_t n = 10'000;
  Hits hits(n);
  const Codelet c = cpu_codelet(
      "real", [&](const Chunk& chunk, const WorkerContext&) { hits.add(chunk.begin, chunk.end); });
  s.parallel_for(n, c);
  EXPECT_EQ(hits.wrong(), 0u);
}

TEST(Scheduler, SyntheticTopologiesDoNotBind) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1"));
  for (const WorkerInfo& w : s.workers()) EXPECT_EQ(s.binding(w.id), BindResult::skipped);
}

TEST(Scheduler, BatchRunsEachTaskOnceWithItsId) {
  Scheduler s(machine("package:2 numa:1 core:3 pu:1"));
  constexpr std::size_t n = 5000;
  Hits hits(n);
  const Codelet c = cpu_codelet("batch", [&](const Chunk& chunk, const WorkerContext&) {
    EXPECT_EQ(chunk.begin, 0u);
    EXPECT_EQ(chunk.end, chunk.task % 7);
    hits.add(chunk.task);
  });
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < n; ++i) tasks.push_back({i, i % 7, &c});
  const RunReport r = s.run(tasks);
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(r.statistics.total_tasks(), n);
  std::size_t items = 0;
  for (const Task& t : tasks) items += t.size;
  EXPECT_EQ(r.statistics.total_items(), items);
}

TEST(Scheduler, ThousandsOfTinyTasksAndAFewHugeOnes) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1"));
  constexpr std::size_t tiny = 5000;
  constexpr std::size_t huge = 3;
  Hits hits(tiny + huge);
  const Codelet c = cpu_codelet("mixed", [&](const Chunk& chunk, const WorkerContext&) {
    if (chunk.size() > 1) spin_for(std::chrono::microseconds(chunk.size() / 100));  // 50 ms each
    hits.add(chunk.task);
  });
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < tiny + huge; ++i)
    tasks.push_back({i, i % 1700 == 0 && i / 1700 < huge ? 5'000'000u : 1u, &c});
  const auto start = std::chrono::steady_clock::now();
  const RunReport r = s.run(tasks, WorkStealingPolicy{});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(r.statistics.total_tasks(), tiny + huge);
}

TEST(Scheduler, IdleWorkersStealFromBusyOnes) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1"));
  // Every item of the first quarter is slow: the other workers must take some of it.
  constexpr std::size_t n = 400;
  Hits hits(n);
  const Codelet c = cpu_codelet("skewed", [&](const Chunk& chunk, const WorkerContext&) {
    for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
      if (i < n / 4) spin_for(200us);
      hits.add(i);
    }
  });
  WorkStealingPolicy p;
  p.cpu_chunk = 1;
  const RunReport r = s.parallel_for(n, c, p);
  EXPECT_EQ(hits.wrong(), 0u);
  std::size_t steals = 0;
  for (const WorkerStats& w : r.statistics.workers) steals += w.steals;
  EXPECT_GT(steals, 0u);
}

TEST(Scheduler, EmptyRunsReturnAtOnce) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  const Codelet c = cpu_codelet("never", [](const Chunk&, const WorkerContext&) { FAIL(); });
  EXPECT_TRUE(s.parallel_for(0, c).complete());
  EXPECT_TRUE(s.run(std::span<const Task>{}).complete());
}

TEST(Scheduler, TaskExceptionsPropagateInPropagateMode) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  const Codelet c = cpu_codelet("throws", [](const Chunk& chunk, const WorkerContext&) {
    if (chunk.begin <= 500 && 500 < chunk.end) throw std::out_of_range("item 500");
  });
  EXPECT_THROW(s.parallel_for(1000, c, ThroughputModelPolicy{}, {FailureMode::propagate, 0}),
               std::out_of_range);
  // The scheduler is still usable afterwards.
  Hits hits(1000);
  const Codelet ok =
      cpu_codelet("ok", [&](const Chunk& chunk, const WorkerContext&) { hits.add(chunk.begin, chunk.end); });
  s.parallel_for(1000, ok);
  EXPECT_EQ(hits.wrong(), 0u);
}

TEST(Scheduler, ATaskThatFailsEverywhereIsAClearError) {
  Scheduler s(machine("package:1 core:3 pu:1"));
  const Codelet c = cpu_codelet("bad", [](const Chunk& chunk, const WorkerContext&) {
    if (chunk.task == 42) throw std::runtime_error("task 42 is broken");
  });
  std::vector<Task> tasks;
  for (std::uint64_t i = 0; i < 100; ++i) tasks.push_back({i, 1, &c});
  try {
    s.run(tasks);
    FAIL() << "expected sextant::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::resource);
    EXPECT_NE(what.find("no device can run task 42"), std::string::npos) << what;
    EXPECT_NE(what.find("task 42 is broken"), std::string::npos) << what;
  }
  EXPECT_EQ(s.statistics().failures.size(), 3u);  // it retired each worker once
}

TEST(Scheduler, CodeletsWithoutAnImplementationForAnyWorkerAreRejected) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  Codelet gpu_only;
  gpu_only.name = "gpu-only";
  gpu_only.add("", DeviceKind::gpu, [](const Chunk&, const WorkerContext&) {});
  EXPECT_THROW(s.parallel_for(10, gpu_only), Error);
  const Task t{0, 1, &gpu_only};
  EXPECT_THROW(s.run(std::span<const Task>(&t, 1)), Error);
  const Task null_codelet{0, 1, nullptr};
  EXPECT_THROW(s.run(std::span<const Task>(&null_codelet, 1)), Error);
}

TEST(Scheduler, RunsFromManyThreadsQueueUp) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  constexpr int clients = 4;
  constexpr std::size_t n = 20'000;
  std::vector<std::unique_ptr<Hits>> hits;
  std::vector<Codelet> codelets;
  for (int i = 0; i < clients; ++i) {
    hits.push_back(std::make_unique<Hits>(n));
    codelets.push_back(
        cpu_codelet("client", [h = hits.back().get()](const Chunk& chunk, const WorkerContext&) {
          h->add(chunk.begin, chunk.end);
        }));
  }
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < clients; ++i) threads.emplace_back([&, i] { s.parallel_for(n, codelets[i]); });
  for (auto& t : threads) t.join();
  for (const auto& h : hits) EXPECT_EQ(h->wrong(), 0u);
  EXPECT_EQ(s.statistics().runs, std::size_t{clients});
  EXPECT_EQ(s.statistics().total_items(), clients * n);
}

TEST(Scheduler, AsyncRunsCompleteInOrder) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  std::vector<int> order;
  std::mutex m;
  std::vector<Codelet> codelets;
  for (int i = 0; i < 5; ++i)
    codelets.push_back(cpu_codelet("async", [&, i](const Chunk&, const WorkerContext&) {
      std::lock_guard lock(m);
      if (order.empty() || order.back() != i) order.push_back(i);
    }));
  std::vector<RunHandle> handles;
  for (int i = 0; i < 5; ++i)
    handles.push_back(s.submit_parallel_for(100, codelets[static_cast<std::size_t>(i)]));
  for (const RunHandle& h : handles) EXPECT_TRUE(h.wait().complete());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(handles.back().ready());
  EXPECT_TRUE(handles.back().wait().complete());  // wait() again is fine
}

TEST(Scheduler, RunsStartedInsideATaskExecuteInline) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  constexpr std::size_t inner_n = 50;
  std::atomic<std::size_t> inner_items{0};
  std::atomic<int> wrong_worker{0};
  const Codelet inner =
      cpu_codelet("inner", [&](const Chunk& chunk, const WorkerContext&) { inner_items += chunk.size(); });
  const Codelet outer = cpu_codelet("outer", [&](const Chunk& chunk, const WorkerContext& ctx) {
    for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
      const RunReport r = s.parallel_for(inner_n, inner);
      if (r.statistics.workers[static_cast<std::size_t>(ctx.worker())].items != inner_n) ++wrong_worker;
    }
  });
  s.parallel_for(20, outer);
  EXPECT_EQ(inner_items.load(), 20 * inner_n);
  EXPECT_EQ(wrong_worker.load(), 0);
}

TEST(Scheduler, WaitingOnAQueuedRunFromATaskIsRefused) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  const Codelet quick = cpu_codelet("quick", [](const Chunk&, const WorkerContext&) {});
  std::optional<RunHandle> queued;
  std::atomic<bool> published{false};
  std::atomic<bool> refused{false};
  std::atomic<bool> inline_ready{false};
  const Codelet waits = cpu_codelet("waits", [&](const Chunk&, const WorkerContext&) {
    inline_ready = s.submit_parallel_for(1, quick).ready();  // from a task: runs inline, done at once
    while (!published.load()) std::this_thread::yield();
    try {
      queued->wait();  // queued behind the run this task belongs to: would never finish
    } catch (const Error&) {
      refused = true;
    }
  });
  const RunHandle current = s.submit_parallel_for(1, waits);
  queued = s.submit_parallel_for(1, quick);
  published = true;
  current.wait();
  queued->wait();
  EXPECT_TRUE(refused.load());
  EXPECT_TRUE(inline_ready.load());
}

TEST(Scheduler, ShutdownWithPendingRunsIsCleanAndReportsCancellation) {
  constexpr std::size_t n = 1'000'000;
  std::atomic<std::size_t> done_items{0};
  const Codelet slow = cpu_codelet("slow", [&](const Chunk& chunk, const WorkerContext& ctx) {
    for (std::size_t i = chunk.begin; i < chunk.end && !ctx.stop.stop_requested(); ++i) {
      spin_for(2us);
      ++done_items;
    }
  });
  std::vector<RunHandle> handles;
  const auto start = std::chrono::steady_clock::now();
  {
    Scheduler s(machine("package:1 core:2 pu:1"));
    WorkStealingPolicy p;
    p.cpu_chunk = 1000;
    for (int i = 0; i < 3; ++i) handles.push_back(s.submit_parallel_for(n, slow, p));
    std::this_thread::sleep_for(20ms);
  }  // destructor: the running chunks finish, everything else is dropped
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  const RunReport first = handles[0].wait();
  EXPECT_EQ(first.status, RunStatus::cancelled);
  EXPECT_GT(first.dropped_items, 0u);
  for (int i = 1; i < 3; ++i) {
    const RunReport r = handles[static_cast<std::size_t>(i)].wait();
    EXPECT_EQ(r.status, RunStatus::cancelled);
    EXPECT_EQ(r.dropped_items, n);
  }
  EXPECT_LT(done_items.load(), n);
}

TEST(Scheduler, IdleSchedulersAreDestroyedAtOnce) {
  for (int i = 0; i < 50; ++i) {
    const auto start = std::chrono::steady_clock::now();
    { Scheduler s(machine("package:2 numa:1 core:4 pu:1")); }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  }
}

TEST(Scheduler, ThroughputIsRememberedPerCodeletSoTheNextRunSkipsProbing) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  std::atomic<std::size_t> first_chunk[2] = {0, 0};
  const Codelet c = cpu_codelet("uneven", [&](const Chunk& chunk, const WorkerContext& ctx) {
    std::size_t none = 0;
    first_chunk[ctx.worker()].compare_exchange_strong(none, chunk.size());
    spin_for(chunk.size() * (ctx.worker() == 0 ? 16us : 2us));
  });
  s.parallel_for(4000, c);
  for (auto& f : first_chunk) f = 0;
  const RunReport second = s.parallel_for(4000, c);
  // Probes are 4000 / (64 * 2) = 31 items; with rates known the fast worker's first chunk is half
  // its ~8/9 share of what is left.
  EXPECT_GT(first_chunk[1].load(), 500u) << report(second, true);
}

TEST(Scheduler, PollingIdleWorkersGiveTheSameResults) {
  SchedulerOptions options;
  options.idle_spin = 50us;
  Scheduler s(machine("package:1 core:2 pu:1", 1), options);
  for (int round = 0; round < 200; ++round) {
    constexpr std::size_t n = 5000;
    Hits hits(n);
    Codelet c = cpu_codelet(
        "poll", [&](const Chunk& chunk, const WorkerContext&) { hits.add(chunk.begin, chunk.end); });
    c.add("", DeviceKind::gpu, c.variants.front().run);
    s.parallel_for(n, c);
    ASSERT_EQ(hits.wrong(), 0u);
  }
}

TEST(Scheduler, StressManySmallRunsBoundedInTime) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1"));
  const auto start = std::chrono::steady_clock::now();
  std::size_t total = 0;
  std::atomic<std::size_t> seen{0};
  const Codelet c =
      cpu_codelet("stress", [&](const Chunk& chunk, const WorkerContext&) { seen += chunk.size(); });
  for (std::size_t round = 0; round < 2000; ++round) {
    const std::size_t n = (round * 7919) % 3000;
    total += n;
    if (round % 2 == 0) {
      s.parallel_for(n, c);
    } else {
      std::vector<Task> tasks(n % 50);
      for (std::size_t i = 0; i < tasks.size(); ++i) tasks[i] = {i, 1, &c};
      total -= n - tasks.size();
      s.run(tasks);
    }
  }
  EXPECT_EQ(seen.load(), total);
  // Sanitizer builds run several times slower: the bound catches hangs, not speed there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  EXPECT_LT(std::chrono::steady_clock::now() - start, 60s);
#else
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
#endif
}

}  // namespace
}  // namespace sextant::scheduler
