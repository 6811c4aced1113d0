// Per-run and per-scheduler options.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/faults.hpp"
#include "scheduler/worker.hpp"

namespace sextant::scheduler {

enum class FailureMode {
  // The failed chunk is re-queued for another device and the failing worker is retired for the
  // rest of the run; the run completes and reports the failure. When no live worker can run some
  // work any more, the run throws sextant::Error (ErrorKind::resource) listing the failures.
  retry_elsewhere,
  // The first exception stops the run (chunks already running finish) and is rethrown as is:
  // the TaskTeam contract.
  propagate,
};

struct RunOptions {
  FailureMode on_failure = FailureMode::retry_elsewhere;
  std::uint64_t id = 0;  // parallel_for: passed as Chunk::task
  // false: bookkeeping between the runs that carry a template's work (e.g. merging results): not
  // added to Scheduler::statistics() and exempt from fault injection.
  bool record = true;
};

struct SchedulerOptions {
  WorkerLayout layout;
  std::vector<std::string> counter_events;  // PAPI event names for every CPU worker; empty = none
  FaultInjection faults;                    // applied to every run
  bool bind_workers = true;                 // pin workers (always a no-op on synthetic topologies)
  // How long an idle CPU worker polls for the next run or for new work before it blocks (GPU host
  // workers and the thread waiting for a run never poll: they share cores with CPU workers). Off by
  // default: with a worker on every core, polling workers delay the waiting caller's wake-up more
  // than they save (measured: 150 vs 111 us per one-item run on 16 cores). Worth trying where the
  // submitting thread has a core of its own (e.g. --devices numa0 with the caller on numa1).
  std::chrono::microseconds idle_spin{0};
};

}  // namespace sextant::scheduler
