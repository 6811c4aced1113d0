// One run inside the scheduler: its work (a batch of tasks or a parallel_for range), the per-worker
// queues, the loop every worker runs for it, failure handling and the report. Internal to
// scheduler/; Scheduler owns the threads and the queue of runs.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/chunk_model.hpp"
#include "scheduler/counters.hpp"
#include "scheduler/deque.hpp"
#include "scheduler/faults.hpp"
#include "scheduler/policies.hpp"
#include "scheduler/run_options.hpp"
#include "scheduler/statistics.hpp"
#include "scheduler/task.hpp"
#include "scheduler/worker.hpp"

namespace sextant::scheduler::detail {

using Clock = std::chrono::steady_clock;

// A variant's chunks on one worker (owner only): what it did in this run, and the items/s an
// earlier run of the same codelet measured (0: none).
struct VariantTally {
  std::size_t tasks = 0;
  std::size_t items = 0;
  double seconds = 0;
  double remembered = 0;

  bool measured() const noexcept { return items > 0 || remembered > 0; }
  double rate() const noexcept {
    return items > 0 ? static_cast<double>(items) / std::max(seconds, 1e-9) : remembered;
  }
};
struct CodeletTallies {
  const Codelet* codelet = nullptr;
  std::vector<VariantTally> variants;  // as Codelet::variants
};
// Chunks a worker gives each runnable variant before it picks the fastest, and how much smaller
// than the policy's chunk a trial chunk is.
inline constexpr std::size_t variant_trials = 2;
inline constexpr std::size_t variant_trial_divisor = 8;

// A worker's share of one run. Statistics are written by the owner only and read after it left.
struct alignas(cache_line) WorkerSlot {
  ChaseLevDeque<std::uint64_t> tasks;  // batch: indices into Job::tasks_
  RangeSlot range;                     // parallel_for
  std::atomic<double> rate{0};         // items/s (moving average); owner writes, everyone reads
  // Its fitted cost per chunk (ChunkCostFit::cost; marginal_rate 0 = none yet); owner writes.
  std::atomic<double> fixed_seconds{0};
  std::atomic<double> marginal_rate{0};
  // Shared pool: when its chunk in flight should end by that cost (Clock ticks; 0 = unknown).
  std::atomic<Clock::rep> busy_until{0};
  std::atomic<bool> live{false};  // takes part and not retired
  bool participates = false;
  std::size_t gpu_item_limit = 0;  // 0 = none (Codelet::gpu_bytes_per_item)
  // Owner only: completions not yet subtracted from Job::unfinished_ (published when the worker
  // runs out of its own work, so workers do not write a shared counter per chunk), and when the
  // worker last started being busy (one clock read per chunk).
  std::size_t unreported = 0;
  Clock::time_point mark;
  ChunkCostFit fit;                // owner only: its chunks, this run's and earlier runs' of the codelet
  std::size_t previous_chunk = 0;  // owner only
  bool declined = false;           // owner only: the shared pool's policy gave it nothing last time
  WorkerStats stats;
  std::vector<CodeletTallies> tallies;  // owner only: one entry per codelet the worker ran
};

// What the throughput model needs about all workers, refreshed at most every `estimate_period`
// by whichever worker finds it stale, so a chunk decision reads one cache line instead of every
// worker's.
struct alignas(cache_line) SharedEstimate {
  std::atomic<double> total_rate{0};  // live participants, the unmeasured counted at their kind's mean
  std::atomic<int> unmeasured{0};
  std::atomic<int> unfitted{0};           // live GPUs without a fitted cost per chunk, and unmeasured workers
  std::atomic<std::size_t> unclaimed{0};  // items still in ranges or re-queued
  std::atomic<double> finish_seconds{0};  // shared pool: team_finish_seconds of the live participants
  std::atomic<Clock::rep> at{0};
};
inline constexpr Clock::duration estimate_period = std::chrono::microseconds(100);
// How often a worker that the shared pool's policy gave nothing looks again: the team's estimate
// changes without anyone waking it.
inline constexpr Clock::duration decline_poll = std::chrono::microseconds(50);

class Job {
 public:
  // The workers outlive the run (the scheduler joins its threads before they go).
  Job(std::span<const WorkerInfo> workers, std::unique_ptr<PolicyBase> policy, RunOptions options,
      const FaultInjection& faults, std::chrono::nanoseconds idle_spin);
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  void set_batch(std::vector<Task> tasks);
  void set_range(std::size_t size, const Codelet& codelet);
  // Codelet name whose throughput is remembered between runs ("" = none).
  const std::string& rate_key() const noexcept { return rate_key_; }
  bool recorded() const noexcept { return options_.record; }
  std::size_t work_units() const noexcept { return kind_ == Kind::batch ? tasks_.size() : range_size_; }

  // The codelet of a one-codelet run (range, or a batch of one codelet), else null.
  const Codelet* single_codelet() const noexcept;
  // Distributes the work over the workers' queues (nobody runs yet); `remembered` are items/s per
  // worker from earlier runs of the same codelet (may be empty), `remembered_variants` the same
  // per variant of single_codelet() ([variant][worker], may be empty), `fits` the workers' cost
  // fits so far (may be empty).
  void prepare(std::span<const double> remembered,
               const std::vector<std::vector<double>>& remembered_variants,
               std::span<const ChunkCostFit> fits, std::uint64_t generation);
  std::uint64_t generation() const noexcept { return generation_; }

  // A worker joins a run before its work() and leaves after it. The run is over, and closed to
  // joiners, once nobody is inside and its work is done (or halted), or once every worker has
  // left: a worker that wakes after the work is done does not hold the run up. join() is false
  // for a closed run (the worker skips it); leave() is true for the one leaver that closed it,
  // which then finishes the run.
  bool join() noexcept;
  bool leave() noexcept;
  // The loop of worker `me` for this run; returns when the run is over for it.
  void work(const WorkerInfo& me, std::span<const int> victims, CounterSet& counters);

  // All of the run on `me`, serially, on the calling thread (a run started inside a task);
  // exceptions propagate.
  void run_inline(const WorkerInfo& me, std::stop_token stop);

  // Stop handing out work: running chunks finish, the rest is dropped (shutdown).
  void cancel() noexcept;
  std::stop_token stop_token() const noexcept { return cancel_.get_token(); }

  // After the last leave() (or for a run that never started): the run's report; rates measured.
  RunReport build_report(const CounterStatus& counters) const;
  std::vector<double> measured_rates() const;
  std::vector<ChunkCostFit> measured_fits() const;  // per worker, the remembered ones carried on
  // Items/s per variant of single_codelet() and worker, 0 where not measured ([variant][worker]).
  std::vector<std::vector<double>> measured_variant_rates() const;
  std::exception_ptr error() const;

  // Completion, for RunHandle.
  void complete(RunReport report) noexcept;
  void fail_before_start(std::exception_ptr error) noexcept;
  bool done() const noexcept { return done_.load(std::memory_order_acquire); }
  // The caller is not pinned: spinning here would take a core from a worker.
  void wait_done() const noexcept { done_.wait(false, std::memory_order_acquire); }
  const RunReport& report() const noexcept { return report_; }

 private:
  enum class Kind { batch, range };

  bool halted() const noexcept {
    return aborted_.load(std::memory_order_relaxed) || cancel_.stop_requested();
  }
  void wake_all() noexcept;
  std::vector<double> initial_weights(std::span<const double> remembered) const;
  void prepare_batch(std::span<const double> weights);
  void prepare_range(std::span<const double> weights);

  bool step_batch(const WorkerInfo& me, std::span<const int> victims, const WorkerContext& ctx);
  bool step_range(const WorkerInfo& me, std::span<const int> victims, const WorkerContext& ctx);
  std::size_t chunk_size(const WorkerInfo& me, std::size_t own_remaining);
  void refresh_estimate(Clock::time_point now) noexcept;
  // Shared pool: team_finish_seconds of the live participants, each from when its chunk in flight
  // ends; sets `unfitted`.
  double team_finish_seconds_now(double unclaimed, int& unfitted) const noexcept;
  bool steal_task(const WorkerInfo& me, std::span<const int> victims, std::uint64_t& task);
  bool take_overflow_task(const WorkerInfo& me, std::uint64_t& task);
  ItemRange take_overflow_range(const WorkerInfo& me);

  // Whether `me` still has variants of the range's codelet to try (then its chunks are small).
  bool trying_variants(const WorkerSlot& slot, const WorkerInfo& me) const;
  // The variant `me` runs `codelet` with next (see variant_trials), and its tally.
  std::pair<const Variant*, VariantTally*> pick_variant(WorkerSlot& slot, const WorkerInfo& me,
                                                        const Codelet& codelet);
  // Runs one chunk; false when it failed (then the failure is handled).
  bool execute(const WorkerInfo& me, const Codelet& codelet, const Chunk& chunk, const WorkerContext& ctx,
               std::uint64_t batch_index);
  void record(WorkerSlot& slot, const Chunk& chunk, Clock::time_point begin, Clock::time_point end) noexcept;
  void finished(WorkerSlot& slot, std::size_t units) noexcept { slot.unreported += units; }
  void publish_cost(WorkerSlot& slot) noexcept;  // its fit's cost, for the others to read
  // The cost per chunk the shared pool counts a worker at: 0 = its rate is unknown.
  static ChunkCost cost_of(DeviceKind kind, const WorkerSlot& slot) noexcept;
  void report_finished(WorkerSlot& slot) noexcept;
  void handle_failure(const WorkerInfo& me, const Chunk& chunk, std::uint64_t batch_index,
                      std::exception_ptr e);
  void abort_locked(std::exception_ptr e) noexcept;
  bool feasible_locked() const noexcept;
  std::string infeasible_message_locked() const;

  // Immutable once prepared.
  std::span<const WorkerInfo> workers_;
  std::unique_ptr<PolicyBase> policy_;
  RunOptions options_;
  FaultCounters faults_;
  bool inject_faults_ = false;
  std::chrono::nanoseconds idle_spin_;
  Kind kind_ = Kind::batch;
  std::vector<Task> tasks_;
  const Codelet* codelet_ = nullptr;
  std::size_t range_size_ = 0;
  std::string rate_key_;
  std::vector<std::vector<double>> remembered_variants_;
  // The range codelet's variant measurements pooled over the workers of one device (a NUMA
  // node's cores, a GPU): a choice made from every core's trial chunks, not from one core's two.
  struct alignas(cache_line) PooledTally {
    std::atomic<std::uint64_t> items{0};
    std::atomic<std::uint64_t> nanoseconds{0};
  };
  std::vector<int> device_index_;          // per worker
  std::unique_ptr<PooledTally[]> pooled_;  // [device][variant], range runs of several variants
  std::uint64_t generation_ = 0;
  int participants_ = 0;
  std::unique_ptr<WorkerSlot[]> slots_;
  Clock::time_point start_;
  bool started_ = false;

  // Shared while running.
  alignas(cache_line) std::atomic<std::size_t> unfinished_{0};  // tasks (batch) or items (range)
  alignas(cache_line) std::atomic<std::uint32_t> epoch_{0};     // bumped when work may appear or the run ends
  SharedEstimate estimate_;
  // Workers inside (bits 0-31), workers that have left (bits 32-62), closed (bit 63).
  std::atomic<std::uint64_t> presence_{0};
  static constexpr std::uint64_t inside_mask = 0xffff'ffffu, left_one = std::uint64_t{1} << 32,
                                 closed_bit = std::uint64_t{1} << 63;
  std::atomic<int> live_cpu_{0};
  std::atomic<int> live_gpu_{0};
  std::atomic<bool> aborted_{false};
  std::stop_source cancel_;

  // Re-queued work, failures and the first error.
  mutable std::mutex mutex_;
  std::deque<std::uint64_t> overflow_tasks_;
  std::deque<ItemRange> overflow_ranges_;
  std::atomic<std::size_t> overflow_size_{0};
  std::vector<FailureRecord> failures_;
  std::exception_ptr error_;

  std::atomic<bool> done_{false};
  RunReport report_;
};

}  // namespace sextant::scheduler::detail
