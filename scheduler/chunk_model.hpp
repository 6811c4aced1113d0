// What a chunk costs a worker, t = fixed_seconds + items / rate, fitted to its recent chunks, and
// when a team of such workers can finish a number of items. A GPU pays a launch, a round trip and
// the tail of its slowest block once per chunk however small the chunk is, so its items/s measured
// on small chunks understates what a large chunk gets; a core pays next to nothing per chunk.
#pragma once

#include <cstddef>
#include <span>

namespace sextant::scheduler {

struct ChunkCost {
  double fixed_seconds = 0;  // per chunk, >= 0
  double rate = 0;           // items/s beyond it, > 0 when known

  double seconds(double items) const noexcept { return fixed_seconds + items / rate; }
};

// A weighted least-squares line through a worker's (items, seconds) pairs; older chunks weigh less
// each time one is added, so the fit follows a workload whose cost drifts. Owner only.
class ChunkCostFit {
 public:
  static constexpr double decay = 0.75;  // weight an earlier chunk keeps when another is added

  void add(double items, double seconds) noexcept;
  // The fit, once two chunks of clearly different sizes show a positive slope; else rate = 0.
  ChunkCost cost() const noexcept;
  std::size_t chunks() const noexcept { return chunks_; }

 private:
  double w_ = 0, n_ = 0, t_ = 0, nn_ = 0, nt_ = 0;
  double min_seconds_ = 0;
  std::size_t chunks_ = 0;
};

// The time T at which workers with costs `team` (rate > 0) finish `items` more together when each
// takes one chunk of rate * (T - fixed_seconds), and those whose fixed cost alone exceeds T take
// none: the least T with sum over workers of max(0, rate * (T - fixed_seconds)) = items. 0 when
// `team` is empty or items is 0.
double team_finish_seconds(std::span<const ChunkCost> team, double items);

}  // namespace sextant::scheduler
