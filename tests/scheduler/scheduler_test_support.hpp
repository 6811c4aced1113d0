// Helpers for the scheduler tests: synthetic machines with fake GPUs (their "gpu" implementation
// runs on the host), per-item hit counters and timed busy work.
#pragma once

#include <time.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/topology.hpp"

namespace sextant::scheduler::testing {

// A synthetic topology with `gpus` fake GPUs attached to NUMA node `node` (1 GiB each).
inline Topology machine(const std::string& description, int gpus = 0, int node = 0) {
  Topology t = synthetic_topology(description);
  std::vector<GpuInfo> list;
  for (int g = 0; g < gpus; ++g) list.push_back({g, node, std::size_t{1} << 30, "fake"});
  add_gpus(t, std::move(list));
  return t;
}

// Busy-waits for `d` of this thread's CPU time (a sleeping thread would not model a busy device),
// so a fake device keeps its speed when the machine is shared and the thread is preempted.
inline void spin_for(std::chrono::nanoseconds d) {
  const auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  const auto end = now() + d;
  while (now() < end) {
  }
}

// How often each item was processed.
class Hits {
 public:
  explicit Hits(std::size_t n) : n_(n), hits_(std::make_unique<std::atomic<int>[]>(n)) {}
  void add(std::size_t i) { hits_[i].fetch_add(1, std::memory_order_relaxed); }
  void add(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) add(i);
  }
  // Items not processed exactly once (0 = every item once).
  std::size_t wrong() const {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n_; ++i) bad += hits_[i].load() != 1 ? 1 : 0;
    return bad;
  }
  int at(std::size_t i) const { return hits_[i].load(); }

 private:
  std::size_t n_;
  std::unique_ptr<std::atomic<int>[]> hits_;
};

}  // namespace sextant::scheduler::testing
