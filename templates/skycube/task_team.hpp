// How a template hands out independent tasks without knowing what runs them: a TaskTeam has a
// number of workers and runs tasks 0 .. count-1, calling fn(task, worker) with worker in
// 0 .. workers()-1 (a worker runs one task at a time, so per-worker scratch needs no locks).
// run_tasks returns when every task is done (a barrier) and rethrows the first exception a task
// threw. The CPU team is cpu/skycube/omp_team.hpp; the scheduler can provide another one.
#pragma once

#include <concepts>
#include <cstddef>

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

}  // namespace sextant::skycube
