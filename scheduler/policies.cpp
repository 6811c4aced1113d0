#include "scheduler/policies.hpp"

#include <algorithm>
#include <cmath>

namespace sextant::scheduler {

namespace {

std::size_t to_items(double x) noexcept {
  if (!(x > 1)) return 1;  // also NaN
  if (x > 1e18) return static_cast<std::size_t>(1e18);
  return static_cast<std::size_t>(x);
}

std::size_t per_participant(std::size_t range, std::size_t divisor, int participants) noexcept {
  const std::size_t d = divisor * static_cast<std::size_t>(std::max(participants, 1));
  return std::max<std::size_t>(range / std::max<std::size_t>(d, 1), 1);
}

}  // namespace

std::size_t WorkStealingPolicy::chunk(const ChunkRequest& r) const noexcept {
  const std::size_t cpu = cpu_chunk != 0 ? cpu_chunk : per_participant(r.range_size, 16, r.participants);
  if (r.kind == DeviceKind::cpu) return cpu;
  return gpu_chunk != 0 ? gpu_chunk : 8 * cpu;
}

std::size_t ThroughputModelPolicy::chunk(const ChunkRequest& r) const noexcept {
  // A lone worker has nobody to balance with: the rest of its range at once (a GPU pays its round
  // trip once; variant trials still cut their own small chunks first).
  if (r.participants <= 1) return std::max<std::size_t>(r.own_remaining, 1);
  if (shared_pool) return pooled_chunk(r);
  const bool gpu = r.kind == DeviceKind::gpu;
  const std::size_t floor = gpu ? min_gpu_chunk : min_cpu_chunk;
  if (r.rate <= 0 || r.total_rate <= 0 || r.unmeasured > 0) {
    const std::size_t probe =
        per_participant(r.range_size, gpu ? gpu_probe_divisor : cpu_probe_divisor, r.participants);
    return std::max(probe, floor);
  }
  const double share = static_cast<double>(r.unclaimed) * (r.rate / r.total_rate) / std::max(spread, 1.0);
  return std::max({to_items(share), to_items(r.rate * min_chunk_seconds), floor});
}

std::size_t ThroughputModelPolicy::pooled_chunk(const ChunkRequest& r) const noexcept {
  const bool gpu = r.kind == DeviceKind::gpu;
  const std::size_t floor = std::max<std::size_t>(gpu ? min_gpu_chunk : min_cpu_chunk, 1);
  if (r.rate <= 0 || r.total_rate <= 0)
    return std::min(
        per_participant(r.range_size, gpu ? gpu_probe_divisor : cpu_probe_divisor, r.participants), floor);
  const bool fitted = gpu && r.marginal_rate > 0;  // a core's fit says little more than noise
  const double rate = fitted ? r.marginal_rate : r.rate;
  const double fixed = fitted ? r.fixed_seconds : 0.0;
  const bool team = r.finish_seconds > 0;
  if (team && r.finish_seconds <= fixed) return 0;
  const double full =
      team ? rate * (r.finish_seconds - fixed) : static_cast<double>(r.unclaimed) * r.rate / r.total_rate;
  const double share = full / std::max(spread, 1.0);
  const double least = std::min(
      std::max({rate * min_chunk_seconds, rate * fixed * fixed_cost_factor, static_cast<double>(floor)}),
      full);
  // While a GPU's cost is unknown, nobody commits to more than min_chunk_seconds: what looks like
  // a slow GPU may be one paying its fixed cost on small chunks.
  const double horizon = r.unfitted > 0 ? 0.0 : fitted && team ? growth * r.elapsed : r.elapsed;
  double grown = rate * std::max(min_chunk_seconds, horizon);
  if (!fitted && gpu) grown = std::max(grown, 2.0 * static_cast<double>(r.previous_chunk));
  return to_items(std::min(std::max(share, least), grown));
}

std::size_t ThroughputModelPolicy::steal(const StealRequest& r) const noexcept {
  if (r.thief_rate <= 0 || r.victim_rate <= 0) return (r.victim_remaining + 1) / 2;
  // Both finish the stolen range together: the thief takes its rate's share.
  const double share = r.thief_rate / (r.thief_rate + r.victim_rate);
  return to_items(std::round(static_cast<double>(r.victim_remaining) * share));
}

double ThroughputModelPolicy::initial_weight(const WeightRequest& r) const noexcept {
  if (r.rate > 0) return r.rate;
  const double mean = r.kind == DeviceKind::gpu ? r.mean_gpu_rate : r.mean_cpu_rate;
  if (mean > 0) return mean;
  // Nothing remembered of this kind: the other kind's rate scaled by the assumed ratio, else the
  // ratio alone.
  const double ratio = r.kind == DeviceKind::gpu ? gpu_weight : 1.0 / gpu_weight;
  const double other = r.kind == DeviceKind::gpu ? r.mean_cpu_rate : r.mean_gpu_rate;
  return other > 0 ? other * ratio : (r.kind == DeviceKind::gpu ? gpu_weight : 1.0);
}

}  // namespace sextant::scheduler
