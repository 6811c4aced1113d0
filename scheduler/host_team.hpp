// A TaskTeam (core/task_team.hpp) on the scheduler's workers for a template's bookkeeping
// (membership bits, the HashCube): the tasks are cut into chunks over the workers, and a worker that owns a
// core group (SDSC: a NUMA node) runs its chunk on an OpenMP team of its cores; a GPU's host thread helps as
// one thread. Its runs are not recorded in the scheduler's statistics (RunOptions::record): they
// are not the template's device work.
//
// Why not a plain OpenMP team on the calling thread: after a parallel region its threads spin for
// milliseconds (libgomp's default wait policy) on the cores the scheduler's workers are pinned to,
// and slow down the next run; the workers' own OpenMP teams (a core group's cuboid hook) already
// sit on exactly those cores.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <vector>

#include "scheduler/scheduler.hpp"

namespace sextant::scheduler {

class HostTeam {
 public:
  explicit HostTeam(Scheduler& s) : scheduler_(&s) {
    for (const WorkerInfo& w : s.workers()) {
      first_.push_back(threads_);
      threads_ += w.threads();  // 1 for a GPU's host thread
      widest_ = std::max(widest_, w.threads());
    }
  }

  int workers() const noexcept { return std::max(threads_, 1); }

  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    if (count == 0) return;
    Codelet codelet;
    codelet.name = "bookkeeping";
    const TaskFunction on_worker = [this, &fn](const Chunk& chunk, const WorkerContext& ctx) {
      const int first = first_[static_cast<std::size_t>(ctx.worker())];
      const int team = std::min<int>(ctx.threads(), static_cast<int>(chunk.size()));
      if (team <= 1) {
        for (std::size_t task = chunk.begin; task < chunk.end; ++task) fn(task, first);
        return;
      }
      std::exception_ptr error;
      std::atomic<bool> failed{false};
      const auto begin = static_cast<std::ptrdiff_t>(chunk.begin);
      const auto end = static_cast<std::ptrdiff_t>(chunk.end);
#pragma omp parallel for num_threads(team) schedule(dynamic, 1)
      for (std::ptrdiff_t task = begin; task < end; ++task) {
        if (failed.load(std::memory_order_relaxed)) continue;
        try {
          fn(static_cast<std::size_t>(task), first + omp_get_thread_num());
        } catch (...) {
#pragma omp critical(sextant_host_team_error)
          if (!error) error = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
      if (error) std::rethrow_exception(error);
    };
    codelet.add("", DeviceKind::cpu, on_worker);
    codelet.add("", DeviceKind::gpu, on_worker);
    // About four chunks per worker, and at least a core group's threads in a chunk (tasks may be
    // long-lived bodies that share a counter: a group must run its cores' worth at once); a core
    // group's OpenMP team evens out its chunk's tasks, the scheduler evens out the workers; a GPU's
    // host thread starts with a one-core share.
    WorkStealingPolicy policy;
    policy.cpu_chunk = std::max<std::size_t>(
        {1, count / (4 * scheduler_->workers().size()), static_cast<std::size_t>(widest_)});
    policy.gpu_chunk = policy.cpu_chunk;
    const int cpu_workers = scheduler_->worker_count(DeviceKind::cpu);
    const int gpu_workers = scheduler_->worker_count(DeviceKind::gpu);
    if (cpu_workers > 0)
      policy.gpu_weight = static_cast<double>(cpu_workers) / static_cast<double>(threads_ - gpu_workers);
    scheduler_->parallel_for(count, codelet, policy, RunOptions{FailureMode::propagate, 0, false});
  }

 private:
  Scheduler* scheduler_;
  std::vector<int> first_;  // per scheduler worker: its first team worker id
  int threads_ = 0;
  int widest_ = 1;  // the most threads of one worker
};

}  // namespace sextant::scheduler
