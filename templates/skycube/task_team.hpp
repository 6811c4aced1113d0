// How a template hands out independent tasks without knowing what runs them: a TaskTeam has a
// number of workers and runs tasks 0 .. count-1, calling fn(task, worker) with worker in
// 0 .. workers()-1 (a worker runs one task at a time, so per-worker scratch needs no locks).
// run_tasks returns when every task is done (a barrier) and rethrows the first exception a task
// threw. The CPU team is cpu/skycube/omp_team.hpp; the scheduler can provide another one.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>

#include "core/device.hpp"

namespace sextant::skycube {

namespace detail {
struct TaskFunctionArchetype {
  void operator()(std::size_t /*task*/, int /*worker*/) const {}
};
}  // namespace detail

template <class T>
concept TaskTeam = requires(T& team, std::size_t count, const detail::TaskFunctionArchetype& fn) {
  { team.workers() } -> std::convertible_to<int>;
  team.run_tasks(count, fn);
};

// Runs every task on the calling thread, in order: one worker.
class SerialTeam {
 public:
  int workers() const noexcept { return 1; }
  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    for (std::size_t task = 0; task < count; ++task) fn(task, 0);
  }
};

static_assert(TaskTeam<SerialTeam>);

namespace detail {
struct RangeFunctionArchetype {
  void operator()(std::size_t /*begin*/, std::size_t /*end*/, int /*worker*/) const {}
};
struct WorkerFunctionArchetype {
  void operator()(int /*worker*/) const {}
};
}  // namespace detail

// One implementation of a range function for a DeviceTeam: what it is (name, device kind),
// whether this machine can run it, and fn(begin, end, worker). A list of them is a codelet's
// variants: the team measures those a worker can run and keeps the fastest (scheduler/task.hpp).
struct RangeVariant {
  std::string_view name;
  DeviceKind kind = DeviceKind::cpu;
  bool runnable = true;
  std::function<void(std::size_t, std::size_t, int)> fn;
  bool fallback = false;  // runs only where no other variant of its kind can (scalar code)
};

// A team whose workers are devices of different kinds (CPU cores or core groups, GPUs). Like a
// codelet, every call takes one function per device kind, and the team runs on each worker the
// one for its kind; `nullptr` as the GPU function means "no GPU implementation" (the GPUs sit the
// run out). The template thus never asks where it runs:
//   run_tasks(count, cpu, gpu)   fn(task, worker), one task at a time per worker;
//   run_range(n, cpu, gpu)       fn(begin, end, worker) over chunks of [0, n) that the team sizes
//                                per device (large on GPUs, small on CPU cores);
//   run_variants(n, variants, name)  the same with a list of RangeVariants (any number per kind);
//                                `name` keys the rates the team remembers;
//   for_each_worker(cpu, gpu)    fn(worker) once per worker: per-device setup before a run.
// A team may re-run a task or chunk on another device after an exception, so the functions must be
// safe to re-run (publish results at the end, or undo on the way out). The scheduler provides
// one: scheduler/team.hpp.
template <class T>
concept DeviceTeam = TaskTeam<T> &&
    requires(T& team, std::size_t count, const detail::TaskFunctionArchetype& task,
             const detail::RangeFunctionArchetype& range, const detail::WorkerFunctionArchetype& setup) {
  team.run_tasks(count, task, task);
  team.run_tasks(count, task, nullptr);
  team.run_range(count, range, range);
  team.run_range(count, range, nullptr);
  team.run_variants(count, std::span<const RangeVariant>(), std::string_view());
  team.for_each_worker(setup, setup);
  team.for_each_worker(setup, nullptr);
};

}  // namespace sextant::skycube
