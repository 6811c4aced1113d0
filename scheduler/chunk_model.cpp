#include "scheduler/chunk_model.hpp"

#include <algorithm>
#include <vector>

namespace sextant::scheduler {

void ChunkCostFit::add(double items, double seconds) noexcept {
  w_ = w_ * decay + 1;
  n_ = n_ * decay + items;
  t_ = t_ * decay + seconds;
  nn_ = nn_ * decay + items * items;
  nt_ = nt_ * decay + items * seconds;
  // The shortest chunk so far, forgotten at the fit's pace (it only bounds the fixed cost).
  min_seconds_ = chunks_ == 0 ? seconds : std::min(min_seconds_ / decay, seconds);
  ++chunks_;
}

ChunkCost ChunkCostFit::cost() const noexcept {
  // Sizes that differ by less than about 1.6x say nothing about the slope: noise would decide it.
  constexpr double min_spread = 0.05;
  const double spread = w_ * nn_ - n_ * n_;
  if (chunks_ < 2 || !(spread > min_spread * n_ * n_)) return {};
  const double slope = (w_ * nt_ - n_ * t_) / spread;  // seconds per item
  if (!(slope > 0)) return {};
  const double fixed = std::clamp((t_ - slope * n_) / w_, 0.0, min_seconds_);
  return {fixed, 1 / slope};
}

double team_finish_seconds(std::span<const ChunkCost> team, double items) {
  if (team.empty() || !(items > 0)) return 0;
  std::vector<ChunkCost> sorted(team.begin(), team.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const ChunkCost& a, const ChunkCost& b) { return a.fixed_seconds < b.fixed_seconds; });
  // With the k cheapest-to-start workers taking part, T = (items + sum rate * fixed) / sum rate; it
  // is the answer once it does not reach the next worker's fixed cost.
  double rates = 0;
  double weighted = 0;
  double finish = 0;
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    rates += sorted[k].rate;
    weighted += sorted[k].rate * sorted[k].fixed_seconds;
    finish = (items + weighted) / rates;
    if (k + 1 == sorted.size() || finish <= sorted[k + 1].fixed_seconds) break;
  }
  return finish;
}

}  // namespace sextant::scheduler
