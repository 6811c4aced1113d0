// How a template hands out independent tasks without knowing what runs them: a TaskTeam has a
// number of workers and runs tasks 0 .. count-1, calling fn(task, worker) with worker in
// 0 .. workers()-1 (a worker runs one task at a time, so per-worker scratch needs no locks).
// run_tasks returns when every task is done (a barrier) and rethrows the first exception a task
// threw. The CPU team is cpu/omp_team.hpp; the scheduler can provide another one.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>

#include "core/device.hpp"

namespace sextant {

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

// One implementation of a team's work for one device kind: what it is (name, kind), whether this
// machine can run it, and fn(begin, end, worker) over items [begin, end). A list of them is a
// codelet's variants (scheduler/task.hpp): the team runs on each worker a variant of the worker's
// kind, measuring those it can run and keeping the fastest.
struct TeamVariant {
  std::string_view name;
  DeviceKind kind = DeviceKind::cpu;
  bool runnable = true;
  std::function<void(std::size_t, std::size_t, int)> fn;
  bool fallback = false;  // runs only where no other variant of its kind can (scalar code)
};

// How a team cuts [0, n) for run_variants: one item at a time (independent tasks of unknown cost,
// e.g. cuboids), or chunks it sizes per device (large on GPUs, small on CPU cores).
enum class Grain { task, range };

namespace detail {
struct WorkerFunctionArchetype {
  void operator()(int /*worker*/) const {}
};
}  // namespace detail

// A team whose workers are devices of different kinds (CPU cores or core groups, GPUs). The
// template hands it lists of variants and never asks where they run:
//   run_variants(n, variants, name, grain)  fn(begin, end, worker) of one variant per worker;
//                                           `name` keys the rates the team remembers;
//   for_each_worker(fn)                     fn(worker) once per worker: per-device setup (GPU
//                                           workers' setups run concurrently);
//   kind(worker), threads(worker), gpu_ordinal(worker)  what a worker is, for hook factories.
// A team may re-run a task or chunk on another device after an exception, so the functions must be
// safe to re-run (publish results at the end, or undo on the way out). The scheduler provides
// one: scheduler/team.hpp.
template <class T>
concept DeviceTeam = TaskTeam<T> &&
    requires(T& team, std::size_t count, int worker, const detail::WorkerFunctionArchetype& setup) {
  { team.kind(worker) } -> std::convertible_to<DeviceKind>;
  { team.threads(worker) } -> std::convertible_to<int>;
  { team.gpu_ordinal(worker) } -> std::convertible_to<int>;
  team.run_variants(count, std::span<const TeamVariant>(), std::string_view(), Grain::task);
  team.for_each_worker(setup);
};

// A TaskTeam behind a type-erased handle, for code that is not a template (HashCube's parallel
// assembly): the caller passes the team it already runs on, so no component starts threads of
// its own.
class TeamRef {
 public:
  using TaskFunction = std::function<void(std::size_t, int)>;

  // The calling thread alone.
  TeamRef()
      : workers_(1), run_([](std::size_t count, const TaskFunction& fn) {
          for (std::size_t task = 0; task < count; ++task) fn(task, 0);
        }) {}
  // Not for a TeamRef itself: copying one must copy it, not refer to it (a copy made from a
  // non-const TeamRef would otherwise dangle once that one goes).
  template <TaskTeam T>
    requires(!std::same_as<T, TeamRef>)
  TeamRef(T& team)  // NOLINT(google-explicit-constructor): a view of any team
      : workers_(team.workers()),
        run_([&team](std::size_t count, const TaskFunction& fn) { team.run_tasks(count, fn); }) {}

  int workers() const noexcept { return workers_; }
  void run_tasks(std::size_t count, const TaskFunction& fn) const { run_(count, fn); }

 private:
  int workers_;
  std::function<void(std::size_t, const TaskFunction&)> run_;
};

static_assert(TaskTeam<TeamRef>);

}  // namespace sextant
