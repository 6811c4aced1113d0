// What the workers did: per worker and per device (a NUMA node's CPU workers, or one GPU) the tasks
// and items processed, busy time, share of the work, failures and hardware counters. A run has
// one Statistics; the scheduler accumulates them until reset. report() formats the per-device
// table the CLI prints for --report (the shape of the paper's Figure 12: work share per device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "scheduler/counters.hpp"

namespace sextant::scheduler {

// What one variant of a codelet did on a worker or device (see Codelet).
struct VariantStats {
  std::string name;
  std::size_t tasks = 0;
  std::size_t items = 0;
  double busy_seconds = 0;
};

struct WorkerStats {
  int worker = 0;
  DeviceId device;
  std::size_t tasks = 0;  // chunks (parallel_for) or tasks (batch) completed
  std::size_t items = 0;
  std::size_t failures = 0;
  std::size_t steals = 0;
  double busy_seconds = 0;             // inside implementations
  double finish_seconds = 0;           // last completion, from the run's start (summed over runs)
  bool retired = false;                // retired after a failure (in any run)
  std::vector<long long> counters;     // one per CounterStatus::events when available
  std::vector<VariantStats> variants;  // which implementations ran, by name
};

struct DeviceStats {
  DeviceId device;
  int workers = 0;
  int retired_workers = 0;
  std::size_t tasks = 0;
  std::size_t items = 0;
  std::size_t failures = 0;
  double busy_seconds = 0;
  double finish_seconds = 0;           // latest worker
  double share = 0;                    // of all items, 0..1
  std::vector<long long> counters;     // summed over the device's CPU workers
  std::vector<VariantStats> variants;  // summed over the device's workers
};

struct FailureRecord {
  int worker = 0;
  DeviceId device;
  std::uint64_t task = 0;
  std::size_t begin = 0;  // the failed chunk's items
  std::size_t end = 0;
  std::string message;
};

struct Statistics {
  std::size_t runs = 0;
  double wall_seconds = 0;
  std::vector<WorkerStats> workers;  // indexed by worker id
  std::vector<FailureRecord> failures;
  CounterStatus counters;

  std::size_t total_tasks() const noexcept;
  std::size_t total_items() const noexcept;
  std::vector<DeviceStats> devices() const;  // CPU devices first, in worker order
  // Adds a run's statistics (same workers).
  void merge(const Statistics& run);
};

enum class RunStatus {
  completed,  // every task ran (possibly after failures, see failures)
  cancelled,  // the scheduler shut down first: dropped_* were never run
};

struct RunReport {
  RunStatus status = RunStatus::completed;
  std::string policy;
  std::size_t dropped_tasks = 0;  // batch tasks never run
  std::size_t dropped_items = 0;  // their items, or parallel_for items never run
  Statistics statistics;

  bool complete() const noexcept { return status == RunStatus::completed; }
};

// Adds `from` into `into`, matching variants by name.
void add_variants(std::vector<VariantStats>& into, const std::vector<VariantStats>& from);

// "avx512 97.0%, avx2 3.0%" (items per variant), or "" with one variant named "".
std::string describe_variants(const std::vector<VariantStats>& variants);

// A per-device table, the counters line ("counters unavailable: <reason>" where so) and the
// failures; with per_worker, a per-worker table (with counters) too.
std::string report(const Statistics& statistics, bool per_worker = false);
std::string report(const RunReport& run, bool per_worker = false);

}  // namespace sextant::scheduler
