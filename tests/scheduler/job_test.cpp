// The run's join/leave protocol (scheduler/job.hpp), driven by hand on one thread: a run is over
// once its work is done and nobody is inside, whichever workers have not woken yet.
#include "scheduler/job.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "scheduler/counters.hpp"
#include "scheduler/policies.hpp"

namespace sextant::scheduler::detail {
namespace {

std::vector<WorkerInfo> cpu_workers(int n) {
  std::vector<WorkerInfo> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)].id = i;
    out[static_cast<std::size_t>(i)].device = {DeviceKind::cpu, 0};
    out[static_cast<std::size_t>(i)].cores = {i};
  }
  return out;
}

struct HandRun {
  explicit HandRun(int count, std::size_t items) : workers(cpu_workers(count)) {
    codelet.name = "count";
    codelet.add("", DeviceKind::cpu,
                [this](const Chunk& c, const WorkerContext&) { done.fetch_add(c.end - c.begin); });
    job = std::make_unique<Job>(this->workers, erase_policy(WorkStealingPolicy{}), RunOptions{},
                                FaultInjection{}, std::chrono::nanoseconds(0));
    job->set_range(items, codelet);
    job->prepare({}, {}, {}, 1);
    for (int i = 0; i < count; ++i) victims.push_back(i);
  }
  void work(int w) {
    CounterSet counters;
    job->work(workers[static_cast<std::size_t>(w)], victims, counters);
  }
  std::vector<WorkerInfo> workers;
  std::vector<int> victims;
  Codelet codelet;
  std::atomic<std::size_t> done{0};
  std::unique_ptr<Job> job;
};

TEST(Job, ARunIsOverWithoutTheWorkersThatHaveNotWoken) {
  HandRun r(4, 1000);
  ASSERT_TRUE(r.job->join());
  r.work(0);  // steals every other worker's share
  EXPECT_EQ(r.done.load(), 1000u);
  EXPECT_TRUE(r.job->leave());  // closed by the one worker inside
  EXPECT_FALSE(r.job->join());  // a worker waking now skips the run
  EXPECT_FALSE(r.job->join());
  EXPECT_EQ(r.job->build_report({}).dropped_items, 0u);
}

TEST(Job, TheLastWorkerInsideClosesTheRun) {
  HandRun r(3, 500);
  ASSERT_TRUE(r.job->join());
  ASSERT_TRUE(r.job->join());
  r.work(0);
  EXPECT_EQ(r.done.load(), 500u);
  EXPECT_FALSE(r.job->leave());  // the other worker is still inside
  r.work(1);                     // finds nothing
  EXPECT_TRUE(r.job->leave());
  EXPECT_FALSE(r.job->join());
}

TEST(Job, ARunWithWorkLeftStaysOpenUntilEveryWorkerHasLeft) {
  HandRun r(2, 100);
  r.job->cancel();  // halted: nothing is handed out
  ASSERT_TRUE(r.job->join());
  r.work(0);
  EXPECT_TRUE(r.job->leave());  // halted and nobody inside: over
  EXPECT_EQ(r.done.load(), 0u);
  EXPECT_FALSE(r.job->join());

  // Not halted, work left, and the one worker inside leaves (as a retired GPU does): still open
  // for the others, and the last of every worker closes it whatever is left.
  HandRun open(2, 100);
  ASSERT_TRUE(open.job->join());
  EXPECT_FALSE(open.job->leave());
  ASSERT_TRUE(open.job->join());
  open.work(1);
  EXPECT_EQ(open.done.load(), 100u);
  EXPECT_TRUE(open.job->leave());
}

}  // namespace
}  // namespace sextant::scheduler::detail
