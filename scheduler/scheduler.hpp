// The scheduler: pinned worker threads for every CPU core (or core group) and a host worker per GPU,
// fed runs one at a time. A run is a batch of Tasks or a parallel_for range; each worker takes from
// its own queue, then from work re-queued after failures, then steals (same NUMA node first). The
// policy type decides shares and chunk sizes; failures retire a worker for the run and re-queue its
// work; statistics and counters are kept per worker.
//
// Threading: runs from several threads queue up and execute one after the other. A run started
// from inside a task of the same scheduler executes inline on the calling worker (serially, so it
// cannot deadlock). Destruction cancels: chunks already running finish, work not started is
// dropped, and every RunHandle reports RunStatus::cancelled; no thread is left behind.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/chunk_model.hpp"
#include "scheduler/counters.hpp"
#include "scheduler/policies.hpp"
#include "scheduler/run_options.hpp"
#include "scheduler/statistics.hpp"
#include "scheduler/task.hpp"
#include "scheduler/topology.hpp"
#include "scheduler/worker.hpp"

namespace sextant::scheduler {

namespace detail {
class Job;
}  // namespace detail

class Scheduler;

// Releases the calling thread's idle OpenMP threads: after a loop they spin for milliseconds, on the
// cores a scheduler's workers are about to take (the next OpenMP loop starts new ones). Nothing
// inside a parallel region. Every Scheduler does it when it starts; a caller that keeps a scheduler
// between OpenMP loops does it before a run.
void release_openmp_threads() noexcept;

// A run in flight. wait() returns its report or rethrows its error (a task's exception under
// FailureMode::propagate, or sextant::Error when no device could finish it); it may be called
// again. Dropping a handle does not cancel the run.
class RunHandle {
 public:
  RunHandle() = default;

  bool valid() const noexcept { return job_ != nullptr; }
  bool ready() const noexcept;
  RunReport wait() const;

 private:
  friend class Scheduler;
  RunHandle(std::shared_ptr<detail::Job> job, const Scheduler* owner) : job_(std::move(job)), owner_(owner) {}

  std::shared_ptr<detail::Job> job_;
  const Scheduler* owner_ = nullptr;  // compared, never dereferenced: detects waiting from a task
};

class Scheduler {
 public:
  explicit Scheduler(Topology topology, SchedulerOptions options = {});
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;
  ~Scheduler();

  const Topology& topology() const noexcept { return topology_; }
  std::span<const WorkerInfo> workers() const noexcept { return workers_; }
  int worker_count(DeviceKind kind) const noexcept;
  std::span<const int> victim_order(int worker) const {
    return victims_.at(static_cast<std::size_t>(worker));
  }
  BindResult binding(int worker) const { return binding_.at(static_cast<std::size_t>(worker)); }
  const CounterStatus& counter_status() const noexcept { return counter_status_; }

  // Runs a batch and waits. Task codelets must outlive the call.
  template <SchedulingPolicy P = ThroughputModelPolicy>
  RunReport run(std::span<const Task> tasks, P policy = {}, RunOptions options = {}) {
    return submit(std::vector<Task>(tasks.begin(), tasks.end()), std::move(policy), options).wait();
  }

  // Runs codelet over items [0, n), split into chunks by the policy, and waits.
  template <SchedulingPolicy P = ThroughputModelPolicy>
  RunReport parallel_for(std::size_t n, const Codelet& codelet, P policy = {}, RunOptions options = {}) {
    return submit_parallel_for(n, codelet, std::move(policy), options).wait();
  }

  // Asynchronous forms: codelets must outlive the run (until wait() returns or the scheduler is
  // destroyed). Argument errors (a task no worker can run) throw here.
  template <SchedulingPolicy P = ThroughputModelPolicy>
  RunHandle submit(std::vector<Task> tasks, P policy = {}, RunOptions options = {}) {
    return submit_batch(std::move(tasks), detail::erase_policy(std::move(policy)), options);
  }
  template <SchedulingPolicy P = ThroughputModelPolicy>
  RunHandle submit_parallel_for(std::size_t n, const Codelet& codelet, P policy = {},
                                RunOptions options = {}) {
    return submit_range(n, codelet, detail::erase_policy(std::move(policy)), options);
  }

  // Statistics of every run since construction or the last reset.
  Statistics statistics() const;
  void reset_statistics();

 private:
  RunHandle submit_batch(std::vector<Task> tasks, std::unique_ptr<detail::PolicyBase> policy,
                         RunOptions options);
  RunHandle submit_range(std::size_t n, const Codelet& codelet, std::unique_ptr<detail::PolicyBase> policy,
                         RunOptions options);
  RunHandle enqueue(std::shared_ptr<detail::Job> job);
  RunHandle run_inline(std::shared_ptr<detail::Job> job);
  void check_runnable(const Codelet& codelet, const char* what, std::uint64_t id) const;
  void start_next_locked();
  void finish(std::shared_ptr<detail::Job> job);
  void worker_main(std::stop_token stop, int id, std::atomic<std::size_t>& started);

  Topology topology_;
  SchedulerOptions options_;
  std::vector<WorkerInfo> workers_;
  std::vector<std::vector<int>> victims_;
  std::vector<BindResult> binding_;
  std::vector<std::string> counter_reasons_;  // per worker, "" when counting
  CounterStatus counter_status_;

  std::mutex mutex_;  // guards queue_, current_, stopping_, generation_ changes
  std::deque<std::shared_ptr<detail::Job>> queue_;
  std::shared_ptr<detail::Job> current_;
  bool stopping_ = false;
  std::atomic<std::uint64_t> generation_{0};

  mutable std::mutex statistics_mutex_;  // guards statistics_, rates_, fits_
  Statistics statistics_;
  std::map<std::string, std::vector<double>> rates_;       // items/s per worker, by codelet name
  std::map<std::string, std::vector<ChunkCostFit>> fits_;  // cost per chunk per worker, by codelet name

  std::vector<std::jthread> threads_;  // last: they start once everything above exists
};

}  // namespace sextant::scheduler
