// A TaskTeam (the shape core/task_team.hpp asks for) backed by the scheduler: run_tasks
// runs fn(task, worker) for tasks 0 .. count-1 on the scheduler's workers, one task at a time per
// worker, and returns when all are done. scheduler/ does not include templates/: this only matches
// the shapes (TaskTeam, DeviceTeam).
//
// cpu_only: only CPU workers run tasks; worker ids are 0 .. workers()-1 = the CPU workers.
// all_workers: GPU host workers run tasks too (worker ids cover them, CPU workers first).
//
// The DeviceTeam form takes a list of variants, like a Codelet: each worker runs one of its kind
// (cpu_only keeps the GPUs out). Grain::range cuts [0, n) into chunks with `range_policy` (large on
// GPUs, small on CPUs, adapted to the throughput each device shows).
//
// Failures: FailureMode::propagate (the TaskTeam contract) stops the run and rethrows the first
// exception; FailureMode::retry_elsewhere re-runs a failed task or chunk on another device, retires
// the failing one for the run and reports it in the scheduler's statistics (the implementation must
// then be safe to re-run, see Codelet).
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "scheduler/scheduler.hpp"

namespace sextant::scheduler {

enum class TeamMode { cpu_only, all_workers };

class SchedulerTeam {
 public:
  SchedulerTeam(Scheduler& scheduler, TeamMode mode, FailureMode on_failure = FailureMode::propagate)
      : scheduler_(&scheduler), mode_(mode), on_failure_(on_failure) {}

  int workers() const noexcept {
    return mode_ == TeamMode::cpu_only ? scheduler_->worker_count(DeviceKind::cpu)
                                       : static_cast<int>(scheduler_->workers().size());
  }
  TeamMode mode() const noexcept { return mode_; }
  DeviceKind kind(int worker) const { return info(worker).kind; }
  const WorkerInfo& info(int worker) const { return scheduler_->workers()[static_cast<std::size_t>(worker)]; }
  Scheduler& scheduler() const noexcept { return *scheduler_; }

  // How run_range cuts its range.
  ThroughputModelPolicy range_policy;
  // false: the team's runs are bookkeeping (RunOptions::record).
  bool record = true;

  int threads(int worker) const { return info(worker).threads(); }
  int gpu_ordinal(int worker) const { return info(worker).gpu_ordinal; }

  // The same fn(task, worker) on every worker, one task at a time per worker.
  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    if (count == 0) return;
    const TaskFunction each = [&fn](const Chunk& chunk, const WorkerContext& ctx) {
      for (std::size_t task = chunk.begin; task < chunk.end; ++task) fn(task, ctx.worker());
    };
    Codelet codelet;
    codelet.name = "task-team";
    codelet.add("", DeviceKind::cpu, each);
    if (mode_ == TeamMode::all_workers) codelet.add("", DeviceKind::gpu, each);
    scheduler_->parallel_for(count, codelet, one_at_a_time(), RunOptions{on_failure_, 0, record});
  }

  // Items [0, n) with any number of variants per device kind (see Codelet): each element has name,
  // kind, runnable, fn(begin, end, worker) and fallback. `name` keys the rates remembered. `grain`
  // (Grain-like: task or range) chooses one item per chunk or range_policy's chunks.
  template <class Variants, class Grain>
  void run_variants(std::size_t n, const Variants& variants, std::string_view name, Grain grain) {
    if (n == 0) return;
    Codelet codelet;
    codelet.name = std::string(name);
    for (const auto& v : variants) {
      if (!v.runnable || (v.kind == DeviceKind::gpu && mode_ == TeamMode::cpu_only)) continue;
      codelet.add(
          std::string(v.name), v.kind,
          [&fn = v.fn](const Chunk& chunk, const WorkerContext& ctx) {
            fn(chunk.begin, chunk.end, ctx.worker());
          },
          {}, v.fallback);
    }
    if (grain == Grain::task)
      scheduler_->parallel_for(n, codelet, one_at_a_time(), RunOptions{on_failure_, 0, record});
    else
      scheduler_->parallel_for(n, codelet, range_policy, RunOptions{on_failure_, 0, record});
  }

  // fn(worker) once for every worker of the team, before a run: per-device setup such as GPU
  // buffers and uploads. With several GPUs their setups run concurrently, one thread each (they wait
  // on copies); CPU setups are cheap, and a single GPU's is not worth a thread (it runs before
  // every batch of a stream): both run on the calling thread. Rethrows the first exception.
  template <class F>
  void for_each_worker(F&& fn) {
    std::exception_ptr first;
    std::mutex mutex;
    const auto guarded = [&](int worker) {
      try {
        fn(worker);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!first) first = std::current_exception();
      }
    };
    int gpus = 0;
    for (int w = 0; w < workers(); ++w) gpus += kind(w) == DeviceKind::gpu ? 1 : 0;
    {
      std::vector<std::jthread> gpu_setups;
      for (int w = 0; w < workers(); ++w) {
        if (kind(w) == DeviceKind::cpu || gpus == 1)
          guarded(w);
        else
          gpu_setups.emplace_back(guarded, w);
      }
    }  // joins
    if (first) std::rethrow_exception(first);
  }

 private:
  // Tasks are independent and of unknown cost: one per chunk, balanced by stealing.
  static WorkStealingPolicy one_at_a_time() {
    WorkStealingPolicy p;
    p.cpu_chunk = 1;
    p.gpu_chunk = 1;
    return p;
  }

  Scheduler* scheduler_;
  TeamMode mode_;
  FailureMode on_failure_;
};

}  // namespace sextant::scheduler
