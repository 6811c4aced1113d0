// A TaskTeam (the shape templates/skycube/task_team.hpp asks for) backed by the scheduler: run_tasks
// runs fn(task, worker) for tasks 0 .. count-1 on the scheduler's workers, one task at a time per
// worker, returns when all are done and rethrows the first exception (the remaining tasks are
// skipped). scheduler/ does not include templates/: this only matches the shape.
//
// cpu_only: only CPU workers run tasks; worker ids are 0 .. workers()-1 = the CPU workers.
// all_workers: GPU host workers run tasks too (worker ids cover them, CPU workers first); fn
// decides what to do there, e.g. by kind(worker).
#pragma once

#include <cstddef>
#include <utility>

#include "core/device.hpp"
#include "scheduler/scheduler.hpp"

namespace sextant::scheduler {

enum class TeamMode { cpu_only, all_workers };

class SchedulerTeam {
 public:
  SchedulerTeam(Scheduler& scheduler, TeamMode mode) : scheduler_(&scheduler), mode_(mode) {}

  int workers() const noexcept {
    return mode_ == TeamMode::cpu_only ? scheduler_->worker_count(DeviceKind::cpu)
                                       : static_cast<int>(scheduler_->workers().size());
  }
  TeamMode mode() const noexcept { return mode_; }
  DeviceKind kind(int worker) const { return info(worker).kind; }
  const WorkerInfo& info(int worker) const { return scheduler_->workers()[static_cast<std::size_t>(worker)]; }

  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    if (count == 0) return;
    // Tasks are independent and of unknown cost: one per chunk, balanced by stealing.
    const auto body = [&fn](const Chunk& chunk, const WorkerContext& ctx) {
      for (std::size_t task = chunk.begin; task < chunk.end; ++task) fn(task, ctx.worker());
    };
    Codelet codelet;
    codelet.name = "task-team";
    codelet.cpu = body;
    if (mode_ == TeamMode::all_workers) codelet.gpu = body;
    WorkStealingPolicy one_at_a_time;
    one_at_a_time.cpu_chunk = 1;
    one_at_a_time.gpu_chunk = 1;
    scheduler_->parallel_for(count, codelet, one_at_a_time, RunOptions{FailureMode::propagate, 0});
  }

 private:
  Scheduler* scheduler_;
  TeamMode mode_;
};

}  // namespace sextant::scheduler
