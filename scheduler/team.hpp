// A TaskTeam (the shape templates/skycube/task_team.hpp asks for) backed by the scheduler: run_tasks
// runs fn(task, worker) for tasks 0 .. count-1 on the scheduler's workers, one task at a time per
// worker, and returns when all are done. scheduler/ does not include templates/: this only matches
// the shapes (TaskTeam, DeviceTeam).
//
// cpu_only: only CPU workers run tasks; worker ids are 0 .. workers()-1 = the CPU workers.
// all_workers: GPU host workers run tasks too (worker ids cover them, CPU workers first).
//
// The DeviceTeam forms take one implementation per device kind, like a Codelet: cpu(...) runs on
// CPU workers, gpu(...) on GPU workers; passing nullptr for gpu (or cpu_only) keeps the GPUs out.
// run_range cuts [0, n) into chunks with `range_policy` (large on GPUs, small on CPUs, adapted to
// the throughput each device shows) and calls fn(begin, end, worker).
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

  // The same fn on every worker of the team.
  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    run_tasks(count, fn, fn);
  }

  // One task at a time per worker; cpu(task, worker) or gpu(task, worker) by the worker's kind.
  template <class Cpu, class Gpu>
  void run_tasks(std::size_t count, Cpu&& cpu, Gpu&& gpu) {
    if (count == 0) return;
    // Tasks are independent and of unknown cost: one per chunk, balanced by stealing.
    const auto each = [](auto& fn) {
      return [&fn](const Chunk& chunk, const WorkerContext& ctx) {
        for (std::size_t task = chunk.begin; task < chunk.end; ++task) fn(task, ctx.worker());
      };
    };
    Codelet codelet;
    codelet.name = "task-team";
    codelet.add("", DeviceKind::cpu, each(cpu));
    if constexpr (!std::is_null_pointer_v<std::remove_cvref_t<Gpu>>)
      if (mode_ == TeamMode::all_workers) codelet.add("", DeviceKind::gpu, each(gpu));
    WorkStealingPolicy one_at_a_time;
    one_at_a_time.cpu_chunk = 1;
    one_at_a_time.gpu_chunk = 1;
    scheduler_->parallel_for(count, codelet, one_at_a_time, RunOptions{on_failure_, 0, record});
  }

  // Items [0, n) in chunks: cpu(begin, end, worker) or gpu(begin, end, worker).
  template <class Cpu, class Gpu>
  void run_range(std::size_t n, Cpu&& cpu, Gpu&& gpu) {
    if (n == 0) return;
    const auto chunks = [](auto& fn) {
      return
          [&fn](const Chunk& chunk, const WorkerContext& ctx) { fn(chunk.begin, chunk.end, ctx.worker()); };
    };
    Codelet codelet;
    codelet.name = "range-team";
    codelet.add("", DeviceKind::cpu, chunks(cpu));
    if constexpr (!std::is_null_pointer_v<std::remove_cvref_t<Gpu>>)
      if (mode_ == TeamMode::all_workers) codelet.add("", DeviceKind::gpu, chunks(gpu));
    scheduler_->parallel_for(n, codelet, range_policy, RunOptions{on_failure_, 0, record});
  }

  // Items [0, n) in chunks, with any number of variants per device kind (see Codelet): each
  // element has name, kind, runnable, fn(begin, end, worker) and fallback. `name` keys the rates remembered.
  template <class Variants>
  void run_variants(std::size_t n, const Variants& variants, std::string_view name) {
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
    scheduler_->parallel_for(n, codelet, range_policy, RunOptions{on_failure_, 0, record});
  }

  // cpu(worker) or gpu(worker) once for every worker of the team, before a run: per-device setup
  // such as GPU buffers and uploads. GPU setups run concurrently, one thread each (they wait on
  // copies); CPU setups are cheap and run on the calling thread. Rethrows the first exception.
  template <class Cpu, class Gpu>
  void for_each_worker(Cpu&& cpu, Gpu&& gpu) {
    std::exception_ptr first;
    std::mutex mutex;
    const auto guarded = [&](auto& fn, int worker) {
      try {
        fn(worker);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!first) first = std::current_exception();
      }
    };
    {
      std::vector<std::jthread> gpu_setups;
      for (int w = 0; w < workers(); ++w) {
        if (kind(w) == DeviceKind::cpu) {
          guarded(cpu, w);
        } else if constexpr (!std::is_null_pointer_v<std::remove_cvref_t<Gpu>>) {
          gpu_setups.emplace_back([&guarded, &gpu, w] { guarded(gpu, w); });
        }
      }
    }  // joins
    if (first) std::rethrow_exception(first);
  }

 private:
  Scheduler* scheduler_;
  TeamMode mode_;
  FailureMode on_failure_;
};

}  // namespace sextant::scheduler
