// A TaskTeam (core/task_team.hpp) of OpenMP threads with dynamic scheduling, one
// task at a time per thread. Exceptions thrown by tasks are caught inside the parallel region
// (they must not cross it); the remaining tasks are skipped and the first one is rethrown.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>

#include "core/task_team.hpp"

namespace sextant::cpu {

class OmpTeam {
 public:
  explicit OmpTeam(int threads) : threads_(std::max(threads, 1)) {}

  int workers() const noexcept { return threads_; }

  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    if (count == 0) return;
    const int team = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), count));
    if (team == 1) {
      for (std::size_t task = 0; task < count; ++task) fn(task, 0);
      return;
    }
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel num_threads(team)
    {
      const int worker = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
      for (std::ptrdiff_t task = 0; task < n; ++task) {
        if (failed.load(std::memory_order_relaxed)) continue;
        try {
          fn(static_cast<std::size_t>(task), worker);
        } catch (...) {
#pragma omp critical(sextant_omp_team_error)
          if (!error) error = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  int threads_;
};

static_assert(TaskTeam<OmpTeam>);

}  // namespace sextant::cpu
