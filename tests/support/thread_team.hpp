// A TaskTeam of `workers` std::threads for tests of code that takes a team (templates/skycube/
// task_team.hpp): task t runs on worker t % workers, all workers at once, so data races between
// tasks show up under the sanitizers. Rethrows the first exception after every worker stopped.
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace sextant::testing {

class ThreadTeam {
 public:
  explicit ThreadTeam(int workers) : workers_(workers < 1 ? 1 : workers) {}

  int workers() const noexcept { return workers_; }

  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    std::exception_ptr first;
    std::mutex mutex;
    {
      std::vector<std::jthread> threads;
      for (int w = 0; w < workers_; ++w)
        threads.emplace_back([&, w] {
          for (std::size_t t = static_cast<std::size_t>(w); t < count;
               t += static_cast<std::size_t>(workers_)) {
            try {
              fn(t, w);
            } catch (...) {
              const std::lock_guard lock(mutex);
              if (!first) first = std::current_exception();
            }
          }
        });
    }  // joins
    if (first) std::rethrow_exception(first);
  }

 private:
  int workers_;
};

}  // namespace sextant::testing
