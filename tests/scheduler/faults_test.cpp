// Device failures: the failed work moves to another device, the device is retired for the run,
// the result stays complete and the failure is reported.
#include "scheduler/faults.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "core/error.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using testing::Hits;
using testing::machine;

Codelet covering(Hits& hits, bool cpu = true, bool gpu = false) {
  Codelet c;
  c.name = "cover";
  // Each chunk takes a little time so that every worker gets its share (and its k-th task).
  const TaskFunction fn = [&hits](const Chunk& chunk, const WorkerContext&) {
    testing::spin_for(std::chrono::microseconds(20));
    if (chunk.begin == 0 && chunk.end == 0) {
      hits.add(chunk.task);  // batch task of size 0: the id is the item
    } else {
      hits.add(chunk.begin, chunk.end);
    }
  };
  if (cpu) c.add("", DeviceKind::cpu, fn);
  if (gpu) c.add("", DeviceKind::gpu, fn);
  return c;
}

// Makes a fault rule fire for sure: workers that are not the target hold their first chunk until the
// target has completed `chunks` chunks (5 s at most), so the target cannot be starved of its k-th
// task by faster-waking workers.
class Gate {
 public:
  Gate(std::function<bool(const WorkerContext&)> is_target, int chunks)
      : is_target_(std::move(is_target)), needed_(chunks) {}
  Codelet wrap(Codelet c) {
    for (Variant& v : c.variants) {
      TaskFunction* fn = &v.run;
      *fn = [this, inner = *fn](const Chunk& chunk, const WorkerContext& ctx) {
        const bool target = is_target_(ctx);
        if (!target) {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (done_.load() < needed_ && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        }
        inner(chunk, ctx);
        if (target) ++done_;
      };
    }
    return c;
  }

 private:
  std::function<bool(const WorkerContext&)> is_target_;
  int needed_;
  std::atomic<int> done_{0};
};

Gate on_worker(int worker, int chunks) {
  return Gate([worker](const WorkerContext& ctx) { return ctx.worker() == worker; }, chunks);
}

SchedulerOptions with_faults(const char* text) {
  SchedulerOptions o;
  o.faults = FaultInjection::parse("--inject-fault", text);
  return o;
}

TEST(FaultInjection, ParsesDevicesAndWorkers) {
  const FaultInjection f = FaultInjection::parse("--inject-fault", "gpu0@3,numa1@1,worker2@5,cpu@7");
  ASSERT_EQ(f.rules.size(), 4u);
  EXPECT_EQ(f.rules[0].device, (DeviceId{DeviceKind::gpu, 0}));
  EXPECT_EQ(f.rules[0].on_task, 3u);
  EXPECT_EQ(f.rules[1].device, (DeviceId{DeviceKind::cpu, 1}));
  EXPECT_EQ(f.rules[2].worker, 2);
  EXPECT_EQ(f.rules[3].device, (DeviceId{DeviceKind::cpu, -1}));
  for (const char* bad : {"gpu0", "gpu0@0", "gpu0@x", "tpu0@1", "all@1", "", "gpu0@1,"})
    EXPECT_THROW(FaultInjection::parse("--inject-fault", bad), Error) << bad;
}

TEST(Faults, CpuWorkerFailureIsRetriedElsewhereAndReported) {
  Scheduler s(machine("package:1 core:3 pu:1"), with_faults("worker1@2"));
  constexpr std::size_t n = 30'000;
  Hits hits(n);
  Gate gate = on_worker(1, 1);
  const Codelet c = gate.wrap(covering(hits));
  WorkStealingPolicy p;
  p.cpu_chunk = 100;
  const RunReport r = s.parallel_for(n, c, p);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(hits.wrong(), 0u);
  ASSERT_EQ(r.statistics.failures.size(), 1u);
  const FailureRecord& f = r.statistics.failures[0];
  EXPECT_EQ(f.worker, 1);
  EXPECT_EQ(f.device, (DeviceId{DeviceKind::cpu, 0}));
  EXPECT_EQ(f.end - f.begin, 100u);
  EXPECT_EQ(f.message, "injected fault: worker1 fails on its 2nd task");
  EXPECT_TRUE(r.statistics.workers[1].retired);
  EXPECT_EQ(r.statistics.workers[1].tasks, 1u);  // its first chunk only
  EXPECT_EQ(r.statistics.total_items(), n);
  const std::string text = report(r);
  EXPECT_NE(text.find("(1 retired)"), std::string::npos) << text;
  EXPECT_NE(text.find("numa0 (worker 1), task 0, items ["), std::string::npos) << text;
}

TEST(Faults, BatchTaskFailureIsRetriedElsewhere) {
  Scheduler s(machine("package:2 numa:1 core:2 pu:1"), with_faults("numa1@3"));
  constexpr std::size_t n = 2000;
  Hits hits(n);
  Gate gate([](const WorkerContext& ctx) { return ctx.device().index == 1; }, 2);
  const Codelet c = gate.wrap(covering(hits));
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < n; ++i) tasks.push_back({i, 0, &c});
  const RunReport r = s.run(tasks);
  EXPECT_EQ(hits.wrong(), 0u);
  ASSERT_EQ(r.statistics.failures.size(), 1u);
  EXPECT_EQ(r.statistics.failures[0].device, (DeviceId{DeviceKind::cpu, 1}));
  const auto devices = r.statistics.devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].retired_workers, 1);
  EXPECT_EQ(devices[1].failures, 1u);
}

TEST(Faults, FailingGpuHandsItsWorkToTheCpus) {
  Scheduler s(machine("package:1 core:2 pu:1", 1), with_faults("gpu0@2"));
  constexpr std::size_t n = 50'000;
  Hits hits(n);
  Gate gate = on_worker(2, 1);
  const Codelet c = gate.wrap(covering(hits, true, true));
  const RunReport r = s.parallel_for(n, c);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(hits.wrong(), 0u);
  ASSERT_EQ(r.statistics.failures.size(), 1u);
  EXPECT_EQ(r.statistics.failures[0].device, (DeviceId{DeviceKind::gpu, 0}));
  EXPECT_EQ(r.statistics.workers[2].tasks, 1u);
  EXPECT_TRUE(r.statistics.workers[2].retired);
  EXPECT_EQ(r.statistics.workers[0].items + r.statistics.workers[1].items + r.statistics.workers[2].items, n);
}

TEST(Faults, FailingCpusHandTheirWorkToTheGpu) {
  Scheduler s(machine("package:1 core:2 pu:1", 1), with_faults("worker0@2,worker1@2"));
  constexpr std::size_t n = 10'000;
  Hits hits(n);
  Gate gate([](const WorkerContext& ctx) { return ctx.kind() == DeviceKind::cpu; }, 2);  // one chunk each
  const Codelet c = gate.wrap(covering(hits, true, true));
  const RunReport r = s.parallel_for(n, c);
  EXPECT_EQ(hits.wrong(), 0u);
  EXPECT_EQ(r.statistics.failures.size(), 2u);
  EXPECT_EQ(r.statistics.workers[0].tasks + r.statistics.workers[1].tasks, 2u) << report(r, true);
  EXPECT_EQ(r.statistics.total_items(), n);
}

TEST(Faults, NoDeviceLeftForGpuOnlyWorkIsAClearError) {
  Scheduler s(machine("package:1 core:2 pu:1", 1), with_faults("gpu0@2"));
  Hits hits(100);
  const Codelet c = covering(hits, false, true);
  try {
    s.parallel_for(100, c, WorkStealingPolicy{1, 1, 1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no device can run items ["), std::string::npos) << what;
    EXPECT_NE(what.find("needs a gpu worker"), std::string::npos) << what;
    EXPECT_NE(what.find("gpu0 worker 2 task 0: injected fault: gpu0 fails on its 2nd task"),
              std::string::npos)
        << what;
  }
}

TEST(Faults, FaultsRecurInEveryRun) {
  Scheduler s(machine("package:1 core:2 pu:1"), with_faults("worker0@2"));
  Hits a(1000);
  Hits b(1000);
  Gate gate_a = on_worker(0, 1);
  Gate gate_b = on_worker(0, 1);
  const Codelet ca = gate_a.wrap(covering(a));
  const Codelet cb = gate_b.wrap(covering(b));
  const WorkStealingPolicy p{10, 10, 1};  // fixed chunks: worker 0 surely gets a second one
  const RunReport ra = s.parallel_for(1000, ca, p);
  const RunReport rb = s.parallel_for(1000, cb, p);
  SCOPED_TRACE(report(ra, true) + report(rb, true));
  EXPECT_EQ(a.wrong(), 0u);
  EXPECT_EQ(b.wrong(), 0u);
  EXPECT_EQ(s.statistics().failures.size(), 2u);
  EXPECT_EQ(s.statistics().workers[0].failures, 2u);
}

TEST(Faults, PropagateModeRethrowsTheFault) {
  Scheduler s(machine("package:1 core:2 pu:1"), with_faults("worker1@2"));
  Hits hits(1000);
  Gate gate = on_worker(1, 1);
  const Codelet c = gate.wrap(covering(hits));
  EXPECT_THROW(s.parallel_for(1000, c, WorkStealingPolicy{10, 10, 1}, {FailureMode::propagate, 0}),
               InjectedFault);
}

TEST(Faults, RealExceptionsRetireTheWorkerToo) {
  Scheduler s(machine("package:1 core:3 pu:1"));
  constexpr std::size_t n = 9000;
  Hits hits(n);
  std::atomic<bool> thrown{false};
  Codelet c;
  c.name = "oom-once";
  c.add("", DeviceKind::cpu, [&](const Chunk& chunk, const WorkerContext&) {
    if (!thrown.exchange(true)) throw std::bad_alloc();  // before touching anything: safe to re-run
    hits.add(chunk.begin, chunk.end);
  });
  const RunReport r = s.parallel_for(n, c);
  EXPECT_EQ(hits.wrong(), 0u);
  ASSERT_EQ(r.statistics.failures.size(), 1u);
  EXPECT_EQ(r.statistics.failures[0].message, std::bad_alloc().what());
}

TEST(Faults, StressEveryWorkerButOneFails) {
  Scheduler s(machine("package:2 numa:1 core:4 pu:1", 2),
              with_faults("worker0@3,worker1@1,worker2@5,worker3@2,worker4@1,worker5@7,worker6@4,gpu0@2"));
  constexpr std::size_t n = 200'000;
  for (int round = 0; round < 20; ++round) {
    Hits hits(n);
    const Codelet c = covering(hits, true, true);
    WorkStealingPolicy p;
    p.cpu_chunk = 50;
    p.gpu_chunk = 500;
    const RunReport r = s.parallel_for(n, c, p);
    ASSERT_EQ(hits.wrong(), 0u);
    std::size_t retired = 0;
    for (const WorkerStats& w : r.statistics.workers) retired += w.retired ? 1 : 0;
    EXPECT_EQ(retired, r.statistics.failures.size());
    EXPECT_FALSE(r.statistics.workers[7].retired);  // the survivors: worker 7 and gpu1
    EXPECT_FALSE(r.statistics.workers[9].retired);
  }
}

}  // namespace
}  // namespace sextant::scheduler
