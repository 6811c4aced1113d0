// Fault injection for tests and demonstrations: "device X (or worker W) fails on its k-th task".
// Counting restarts with every run, so the rule models a device that is broken, not a one-off
// glitch. An injected fault throws InjectedFault instead of running the implementation, exactly as
// a CUDA error or an out-of-memory would surface once the caller maps them to exceptions.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "scheduler/worker.hpp"

namespace sextant::scheduler {

struct FaultRule {
  DeviceId device;          // every worker of this device counts towards k ...
  int worker = -1;          // ... unless a worker id is given
  std::size_t on_task = 1;  // 1-based
};

struct FaultInjection {
  std::vector<FaultRule> rules;

  bool empty() const noexcept { return rules.empty(); }
  // "gpu0@3,numa1@1,worker2@5"; throws Error naming `parameter`.
  static FaultInjection parse(const char* parameter, std::string_view text);
};

class InjectedFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

// The per-run counters behind a FaultInjection; workers call should_fail concurrently.
class FaultCounters {
 public:
  explicit FaultCounters(const FaultInjection& faults);
  // Counts one attempt by `worker`; throws InjectedFault when that attempt is a rule's k-th.
  void before_task(const WorkerInfo& worker);

 private:
  std::vector<FaultRule> rules_;
  std::unique_ptr<std::atomic<std::size_t>[]> counts_;
};

}  // namespace detail
}  // namespace sextant::scheduler
