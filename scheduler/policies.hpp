// Scheduling policies decide how much work a worker takes: its initial share of a run, the chunk
// it takes from its own range, and how much it steals. A policy is a small value type (copied into
// the run) whose member functions are pure, so workers call them concurrently without locks; what
// a worker has shown (items/s) comes in through the requests, measured by the scheduler.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <string_view>

#include "core/device.hpp"

namespace sextant::scheduler {

struct ChunkRequest {
  DeviceKind kind = DeviceKind::cpu;
  std::size_t range_size = 0;     // items of the whole parallel_for
  std::size_t unclaimed = 0;      // items nobody has taken yet (all ranges and re-queued work)
  std::size_t own_remaining = 0;  // items left in this worker's own range (> 0)
  int participants = 1;           // workers taking part in the run
  double rate = 0;                // this worker's measured items/s; 0 = nothing measured yet
  double total_rate = 0;          // estimated items/s of all live participants; 0 = unknown
  int unmeasured = 0;             // live participants without a measured rate yet
  double elapsed = 0;             // seconds since the run started
  // This worker's cost per chunk fitted to its chunks so far (scheduler/chunk_model.hpp):
  // marginal_rate 0 = not fitted yet (too few chunks, or all of one size).
  double fixed_seconds = 0;
  double marginal_rate = 0;
  std::size_t previous_chunk = 0;  // this worker's last chunk in this run; 0 = none yet
  // When the live participants would finish the unclaimed items if each took one more chunk sized
  // by its fitted cost (team_finish_seconds); 0 = unknown.
  double finish_seconds = 0;
  int unfitted = 0;  // live GPU participants without a fitted cost yet, and unmeasured ones
};

struct StealRequest {
  DeviceKind thief_kind = DeviceKind::cpu;
  DeviceKind victim_kind = DeviceKind::cpu;
  std::size_t victim_remaining = 0;  // > 0
  double thief_rate = 0;             // items/s; 0 = unknown
  double victim_rate = 0;
};

struct WeightRequest {
  DeviceKind kind = DeviceKind::cpu;
  double rate = 0;           // this worker's remembered items/s (same codelet, earlier runs); 0 = none
  double mean_cpu_rate = 0;  // means over the participants with a remembered rate; 0 = none
  double mean_gpu_rate = 0;
};

template <class P>
concept SchedulingPolicy = std::copy_constructible<P> &&
    requires(const P& p, const ChunkRequest& chunk, const StealRequest& steal, const WeightRequest& weight) {
  { P::name } -> std::convertible_to<std::string_view>;
  { P::uses_rates } -> std::convertible_to<bool>;  // false: the scheduler skips total_rate
  // clamped to [1, own_remaining]; from a shared pool 0 is kept: nothing for this worker now
  { p.chunk(chunk) } -> std::convertible_to<std::size_t>;
  { p.steal(steal) } -> std::convertible_to<std::size_t>;       // clamped to [1, victim_remaining]
  { p.initial_weight(weight) } -> std::convertible_to<double>;  // share of the initial split
};

// Plain work stealing: fixed chunks per device kind (GPU chunks large, CPU chunks small), equal
// initial shares, thieves take half.
struct WorkStealingPolicy {
  static constexpr std::string_view name = "work-stealing";
  static constexpr bool uses_rates = false;

  std::size_t cpu_chunk = 0;  // 0 = range / (16 * participants)
  std::size_t gpu_chunk = 0;  // 0 = 8 * the CPU chunk
  double gpu_weight = 1;      // a GPU worker's initial share relative to a CPU worker's

  std::size_t chunk(const ChunkRequest& r) const noexcept;
  std::size_t steal(const StealRequest& r) const noexcept { return (r.victim_remaining + 1) / 2; }
  double initial_weight(const WeightRequest& r) const noexcept {
    return r.kind == DeviceKind::gpu ? gpu_weight : 1.0;
  }
};

// Chunks from a throughput model: a worker with measured rate r takes
//   max(min chunk of its kind, r * min_chunk_seconds, unclaimed * r / total_rate / spread)
// i.e. a fixed fraction of its fair share of what is left, so chunks shrink towards the end and
// every device finishes at about the same time. Until every live worker has a measured rate,
// workers take probe chunks: committing a large chunk to a device before its speed relative to the
// others is known is how a slow device ends up finishing last. Initial shares and steals are
// proportional to rates. A lone participant takes the rest of its range at once.
//
// With shared_pool, nothing is split up front: every worker takes its chunks from the front of one
// shared range, so a device whose speed was guessed wrong has nothing to give back by stealing. For
// runs whose devices differ by orders of magnitude and whose rates are not remembered (a GPU
// thousands of times a core on one workload, slower than a core on the next). Chunks are then
//   probe: min(range / (divisor * participants), min chunk of its kind), while its rate is unknown;
//   then, from the worker's cost per chunk t = fixed + n / rate (fitted to its chunks, see
//   chunk_model.hpp) and the time T at which the team would finish what is left:
//     full = rate * (T - fixed): its part if everyone took one last chunk now; none when its fixed
//            cost alone outlasts T (the others finish first: a GPU's launch and tail against a few
//            items left, or cores against a GPU far faster);
//     chunk = min(max(full / spread, least), rate * max(min_chunk_seconds, growth * elapsed)),
//     (with T unknown, full = unclaimed * its share of the team's items/s)
//     least = min(max(rate * min_chunk_seconds, rate * fixed * fixed_cost_factor, min chunk), full):
// the efficiency floors never make a chunk outlast what the whole team needs for the rest, a chunk
// lasts a multiple of its fixed cost where the rest allows, and no chunk outlasts `growth` times the
// run so far (1 time for a worker not fitted yet). Cores count at fixed = 0 and their items/s so far:
// a core pays next to nothing per chunk, and a fit to its chunks of similar sizes says little more
// than their noise. So does a GPU until its fit exists; its chunks at least double until it does, and until
// every GPU's fit exists nobody takes more than min_chunk_seconds: a rate measured on a GPU's first,
// small chunks understates it by its fixed cost per chunk, which overstates everyone else's part.
// Fits are remembered between runs of a codelet, like rates.
struct ThroughputModelPolicy {
  static constexpr std::string_view name = "throughput-model";
  static constexpr bool uses_rates = true;

  double spread = 2;                  // > 1: how many chunks a fair share is cut into
  double min_chunk_seconds = 200e-6;  // keeps scheduling overhead well under 1% per chunk
  std::size_t min_cpu_chunk = 1;
  std::size_t min_gpu_chunk = 1;
  std::size_t cpu_probe_divisor = 64;  // probe chunk = range / (divisor * participants)
  std::size_t gpu_probe_divisor = 8;
  // A GPU worker's rate relative to a CPU worker's, assumed for its initial share until one is
  // remembered: with equal shares a short run on many cores and a few GPUs leaves most of the
  // range with the slow workers, and the GPUs spend the run stealing it back.
  double gpu_weight = 1;
  bool shared_pool = false;
  // shared_pool only: a chunk lasts at least this many times the worker's fixed cost per chunk
  // (when the rest allows), and at most `growth` times the run so far once its cost is fitted.
  double fixed_cost_factor = 32;
  double growth = 8;

  std::size_t chunk(const ChunkRequest& r) const noexcept;
  std::size_t steal(const StealRequest& r) const noexcept;
  double initial_weight(const WeightRequest& r) const noexcept;

 private:
  std::size_t pooled_chunk(const ChunkRequest& r) const noexcept;
};

static_assert(SchedulingPolicy<WorkStealingPolicy>);
static_assert(SchedulingPolicy<ThroughputModelPolicy>);

namespace detail {

// A run holds its policy behind this interface so the engine compiles once (scheduler.cpp).
class PolicyBase {
 public:
  virtual ~PolicyBase() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual bool uses_rates() const noexcept = 0;
  virtual std::size_t chunk(const ChunkRequest& r) const = 0;
  virtual std::size_t steal(const StealRequest& r) const = 0;
  virtual double initial_weight(const WeightRequest& r) const = 0;
  // True: the run's range starts in one shared pool instead of being split among the workers.
  virtual bool shared_pool() const noexcept = 0;
};

template <SchedulingPolicy P>
class PolicyModel final : public PolicyBase {
 public:
  explicit PolicyModel(P policy) : policy_(std::move(policy)) {}
  std::string_view name() const noexcept override { return P::name; }
  bool uses_rates() const noexcept override { return P::uses_rates; }
  std::size_t chunk(const ChunkRequest& r) const override { return policy_.chunk(r); }
  std::size_t steal(const StealRequest& r) const override { return policy_.steal(r); }
  double initial_weight(const WeightRequest& r) const override { return policy_.initial_weight(r); }
  bool shared_pool() const noexcept override {
    if constexpr (requires { bool{policy_.shared_pool}; })
      return policy_.shared_pool;
    else
      return false;
  }

 private:
  P policy_;
};

template <SchedulingPolicy P>
std::unique_ptr<PolicyBase> erase_policy(P policy) {
  return std::make_unique<PolicyModel<P>>(std::move(policy));
}

}  // namespace detail
}  // namespace sextant::scheduler
