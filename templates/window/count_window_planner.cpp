#include "templates/window/count_window_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/chunk_geometry.hpp"
#include "templates/window/count_window_policy.hpp"
#include "templates/window/tile_layout.hpp"

namespace sextant::window {

namespace {

using policy::block_threads;
using policy::coop_direct_chunks;
using policy::sector;
using policy::sh_tile;
using policy::tile_blocks_per_sm;

using namespace policy::cost;  // the cost model's fitted constants

double safe_div(double a, double b) {
  return b > 0 ? a / b : std::numeric_limits<double>::infinity();
}

struct Sizes {
  ChunkGeometry g;
  double value_bytes;
  double acc_bytes;
  double values_read;  // values any window covers (gaps of S > W skipped)
  double bytes_read;   // sectors of the input actually fetched
  double out_bytes;
};

// What one accumulator takes in device memory (a positional function's holds a value and its
// position: more than the output type).
std::uint64_t accumulator_bytes(const CountWindowProblem& p) {
  return visit_aggregate(p.type, p.kind, [](auto agg) { return sizeof(typename decltype(agg)::Acc); });
}

Sizes sizes_of(const CountWindowProblem& p) {
  Sizes s;
  s.g = make_geometry(p);
  s.value_bytes = static_cast<double>(size_of(p.type));
  s.acc_bytes = static_cast<double>(size_of(p.output_type()));
  const double used = static_cast<double>(s.g.used);
  const double k = static_cast<double>(s.g.windows);
  if (s.g.full_chunks == 0) {
    const double per_window = static_cast<double>(s.g.length) * s.value_bytes;
    s.values_read = k * static_cast<double>(s.g.length);
    s.bytes_read = std::min(used * s.value_bytes, k * (std::ceil(per_window / sector) + 1) * sector);
  } else {
    s.values_read = used;
    s.bytes_read = used * s.value_bytes;
  }
  s.out_bytes = k * s.acc_bytes;
  return s;
}

// Window contributions that cross tile boundaries (each is one global atomic).
double crossing_contributions(const ChunkGeometry& g, double tile) {
  const double k = static_cast<double>(g.windows);
  const double span = static_cast<double>(g.length - 1) / tile;  // boundaries inside a window, on average
  return span >= 1 ? k * (1 + span) : k * span * 2;
}

// Fewer tiles than the device holds at once leave SMs idle.
double occupancy_factor(double tiles, const DeviceProfile& d) {
  const double slots = static_cast<double>(std::max(1, d.multiprocessors)) * tile_blocks_per_sm;
  return tiles >= slots ? 1.0 : std::max(tiles, 1.0) / slots;
}

// Two input stages and two blocks per SM when they fit; else fewer.
std::optional<TileLayout> choose_tile(const CountWindowProblem& p, const DeviceProfile& d, bool expand) {
  const ChunkGeometry g = make_geometry(p);
  const auto vb = static_cast<std::uint32_t>(size_of(p.type));
  const auto ab = static_cast<std::uint32_t>(size_of(p.output_type()));
  const TileLayout two = make_tile_layout(g, vb, ab, expand, 2);
  if (2 * (std::uint64_t{two.total_bytes} + 1024) <= d.shared_per_sm && two.total_bytes <= d.shared_per_block)
    return two;
  if (two.total_bytes <= d.shared_per_block) return two;
  const TileLayout one = make_tile_layout(g, vb, ab, expand, 1);
  if (one.total_bytes <= d.shared_per_block) return one;
  return std::nullopt;
}

std::uint32_t blocks_per_sm(const TileLayout& l, const DeviceProfile& d) {
  return static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(d.shared_per_sm / (std::uint64_t{l.total_bytes} + 1024), 1, 3));
}

double launches(const DeviceProfile& d, int count) {
  return d.launch_seconds * count;
}

// The tile kernel: the larger of its memory time, its instruction time and its tiles' barrier
// latency (two blocks per SM hide one another's).
double tile_seconds(const Sizes& s, const TileLayout& l, const DeviceProfile& d, const TileCosts& c,
                    double window_touches, double extra_bytes) {
  const double tile = static_cast<double>(l.tile);
  const double tiles = std::ceil(static_cast<double>(s.g.used) / tile);
  const double streamed = static_cast<double>(s.g.used) * s.value_bytes;  // tiles read the gaps too
  const double t_mem = safe_div(streamed, stream_efficiency * d.read_bandwidth * occupancy_factor(tiles, d)) +
                       safe_div(s.out_bytes + extra_bytes, stream_efficiency * d.write_bandwidth);
  const double chunk_touches = static_cast<double>(s.g.chunks) + tiles;
  const double per_chunk =
      std::min(c.per_chunk_cap, c.per_chunk + c.per_chunk_slope * static_cast<double>(s.g.slide));
  const double t_instr = safe_div(
      c.per_value * static_cast<double>(s.g.used) + per_chunk * chunk_touches + c.per_window * window_touches,
      d.instruction_rate);
  // per_tile was fitted with two blocks per SM; a third did not shorten the barrier chains.
  const double blocks =
      static_cast<double>(std::max(1, d.multiprocessors)) * std::min<std::uint32_t>(2, blocks_per_sm(l, d));
  const double t_tiles = std::ceil(tiles / blocks) * c.per_tile / 2;
  return std::max({t_mem, t_instr, t_tiles});
}

PlanResult plan_gbl(const CountWindowProblem& p, const DeviceProfile& d) {
  const Sizes s = sizes_of(p);
  CountPlan plan;
  plan.algorithm = CountAlgorithm::gbl;
  plan.block_threads = block_threads;
  const double fan_out = static_cast<double>(s.g.fan_out());
  const double updates = s.values_read * fan_out;
  // Lanes of a warp that update the same window serialise: up to min(S, 32) / fan-out of them.
  const double conflicts =
      std::max(1.0, std::min(32.0, static_cast<double>(s.g.slide)) / std::min(32.0, fan_out));
  const double instr = baseline_per_value * static_cast<double>(s.g.used) + baseline_per_update * updates;
  plan.predicted_seconds = std::max({safe_div(s.bytes_read, d.read_bandwidth),
                                     safe_div(updates * conflicts, d.contended_atomic_rate),
                                     safe_div(instr, d.instruction_rate)}) +
                           safe_div(s.out_bytes, d.write_bandwidth) + launches(d, 2);
  return {plan, {}};
}

PlanResult plan_sh(const CountWindowProblem& p, const DeviceProfile& d) {
  const Sizes s = sizes_of(p);
  const std::uint64_t slots = (sh_tile + s.g.length - 2) / s.g.slide + 2;
  const std::uint64_t bytes = slots * static_cast<std::uint64_t>(s.acc_bytes);
  if (bytes > d.shared_per_block)
    return {std::nullopt, "SH needs " + std::to_string(bytes) + " bytes of shared memory per block for " +
                              std::to_string(slots) + " windows, the device allows " +
                              std::to_string(d.shared_per_block)};
  CountPlan plan;
  plan.algorithm = CountAlgorithm::sh;
  plan.block_threads = block_threads;
  plan.tile = sh_tile;
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  const double tiles = std::ceil(static_cast<double>(s.g.used) / static_cast<double>(sh_tile));
  const double fan_out = static_cast<double>(s.g.fan_out());
  const double updates = s.values_read * fan_out;
  const double flush_atomics = crossing_contributions(s.g, static_cast<double>(sh_tile));
  const double occupancy =
      std::min(1.0, static_cast<double>(d.shared_per_sm) / std::max(1.0, static_cast<double>(bytes)) / 8.0);
  // Lanes of a warp that update the same window serialise: up to min(S, 32) / fan-out of them.
  const double conflicts =
      std::max(1.0, std::min(32.0, static_cast<double>(s.g.slide)) / std::min(32.0, fan_out));
  const double instr = baseline_per_value * static_cast<double>(s.g.used) + baseline_per_update * updates;
  plan.predicted_seconds =
      sh_slowdown *
          std::max({safe_div(s.bytes_read, d.read_bandwidth * occupancy_factor(tiles, d)),
                    safe_div(updates * conflicts, d.shared_atomic_rate * std::max(occupancy, 0.125)),
                    safe_div(instr, d.instruction_rate)}) +
      safe_div(s.out_bytes, d.write_bandwidth) + safe_div(flush_atomics, d.global_atomic_rate) +
      launches(d, 2);
  return {plan, {}};
}

// The direct kernel for S > W with wide gaps: reads only the windows' sectors.
CountPlan plan_heads(CountAlgorithm algorithm, const Sizes& s, const DeviceProfile& d) {
  CountPlan plan;
  plan.algorithm = algorithm;
  plan.block_threads = block_threads;
  plan.heads = true;
  plan.group = heads_group(s.g.length, static_cast<std::uint32_t>(s.value_bytes));
  const double resident = static_cast<double>(std::max(1, d.multiprocessors)) * 2048;
  // Long windows too few to fill the device are cut into pieces of at least 16 KiB.
  const double window_bytes = static_cast<double>(s.g.length) * s.value_bytes;
  const double want = std::ceil(2 * resident / (static_cast<double>(s.g.windows) * plan.group));
  plan.pieces =
      static_cast<std::uint32_t>(std::clamp(std::min(want, std::floor(window_bytes / 16384)), 1.0, 65536.0));
  const double lanes = static_cast<double>(s.g.windows) * plan.group * plan.pieces;
  // Few lanes cannot keep enough loads in flight.
  const double parallelism = std::min(1.0, lanes / resident);
  plan.predicted_seconds =
      safe_div(s.bytes_read, stream_efficiency * d.read_bandwidth * std::max(parallelism, 0.02)) +
      safe_div(s.out_bytes, d.write_bandwidth) + launches(d, plan.pieces > 1 ? 2 : 1);
  return plan;
}

PlanResult plan_coop(const CountWindowProblem& p, const DeviceProfile& d) {
  const Sizes s = sizes_of(p);
  std::optional<CountPlan> heads;
  if (uses_heads(p)) heads = plan_heads(CountAlgorithm::coop, s, d);
  const auto layout = choose_tile(p, d, true);
  if (!layout) {
    if (heads) return {heads, {}};
    return {std::nullopt, "COOP-OPT: the partials of one tile do not fit the shared memory of a block"};
  }
  CountPlan plan;
  plan.algorithm = CountAlgorithm::coop;
  plan.block_threads = block_threads;
  plan.tile = layout->tile;
  plan.stages = layout->stages;
  plan.shared_bytes = layout->total_bytes;
  const double tile = static_cast<double>(layout->tile);
  const double atomics = crossing_contributions(s.g, tile);
  const double windows = static_cast<double>(s.g.windows) + atomics;
  const bool direct = s.g.full_chunks <= coop_direct_chunks;
  TileCosts costs = direct ? coop_direct_costs : coop_scan_costs;
  if (direct)
    costs.per_window += coop_direct_per_chunk_read * static_cast<double>(s.g.full_chunks) *
                        std::min(1.0, 16.0 / static_cast<double>(s.g.slide));
  plan.predicted_seconds =
      std::max(tile_seconds(s, *layout, d, costs, windows, 0), safe_div(atomics, d.global_atomic_rate)) +
      launches(d, 2);
  if (heads && heads->predicted_seconds < plan.predicted_seconds) return {heads, {}};
  return {plan, {}};
}

std::uint64_t cub_scan_scratch(std::uint64_t items) {
  return items / 128 * 16 + (std::uint64_t{1} << 20);
}

// Tile totals and their scan, running totals inside tiles at chunk starts (and head ends).
std::uint64_t tile_scan_workspace_bytes(const CountWindowProblem& p, std::uint64_t tile) {
  const ChunkGeometry g = make_geometry(p);
  const std::uint64_t ab = size_of(p.output_type());
  const std::uint64_t tiles = (g.used + tile - 1) / tile;
  return 2 * (tiles + 1) * ab + g.chunks * ab + (g.rest != 0 ? g.windows * ab : 0) + cub_scan_scratch(tiles);
}

PlanResult plan_direct_prefix(const CountWindowProblem& p, const DeviceProfile& d) {
  const Sizes s = sizes_of(p);
  CountPlan plan;
  plan.algorithm = CountAlgorithm::direct_prefix;
  plan.block_threads = block_threads;
  plan.workspace_bytes = workspace_bytes(CountAlgorithm::direct_prefix, p);
  if (plan.workspace_bytes > d.free_memory)
    return {std::nullopt, "DIRECT-PREFIX needs " + std::to_string(plan.workspace_bytes) +
                              " bytes of device memory for its prefix sums, " +
                              std::to_string(d.free_memory) + " are free"};
  const double used = static_cast<double>(s.g.used);
  const double scan = safe_div(used * s.value_bytes, d.read_bandwidth * direct_scan_efficiency) +
                      safe_div(used * s.acc_bytes, d.write_bandwidth * direct_scan_efficiency);
  const double stride_bytes = static_cast<double>(s.g.slide) * s.acc_bytes;
  const double expand_read =
      stride_bytes >= sector ? 2.0 * static_cast<double>(s.g.windows) * sector : used * s.acc_bytes;
  plan.predicted_seconds = scan + safe_div(expand_read, d.read_bandwidth) +
                           safe_div(s.out_bytes, d.write_bandwidth) + launches(d, 4);
  return {plan, {}};
}

// Two segmented scans over the values read (each reads the input and writes accumulators), then
// one gather of two accumulators per window.
PlanResult plan_block_scan(const CountWindowProblem& p, const DeviceProfile& d) {
  const Sizes s = sizes_of(p);
  CountPlan plan;
  plan.algorithm = CountAlgorithm::block_scan;
  plan.block_threads = block_threads;
  plan.workspace_bytes = workspace_bytes(CountAlgorithm::block_scan, p);
  if (plan.workspace_bytes > d.free_memory)
    return {std::nullopt, "BLOCK-SCAN needs " + std::to_string(plan.workspace_bytes) +
                              " bytes of device memory for its two scans, " + std::to_string(d.free_memory) +
                              " are free"};
  const double used = static_cast<double>(s.g.used);
  const auto acc_bytes = static_cast<double>(accumulator_bytes(p));
  const double efficiency = acc_bytes > 8 ? block_scan_wide_efficiency : direct_scan_efficiency;
  const double scans = 2.0 * (safe_div(used * s.value_bytes, d.read_bandwidth * efficiency) +
                              safe_div(used * acc_bytes, d.write_bandwidth * efficiency));
  const double gather = safe_div(2.0 * static_cast<double>(s.g.windows) * std::max<double>(acc_bytes, sector),
                                 d.read_bandwidth);
  plan.predicted_seconds = scans + gather + safe_div(s.out_bytes, d.write_bandwidth) + launches(d, 3);
  return {plan, {}};
}

PlanResult plan_reduced_prefix(const CountWindowProblem& p, const DeviceProfile& d) {
  const Sizes s = sizes_of(p);
  std::optional<CountPlan> best;
  if (uses_heads(p)) best = plan_heads(CountAlgorithm::reduced_prefix, s, d);
  const auto layout = choose_tile(p, d, false);
  if (!layout) {
    if (best) return {best, {}};
    return {std::nullopt, "REDUCED-PREFIX: the partials of one tile do not fit the shared memory of a block"};
  }
  CountPlan base;
  base.algorithm = CountAlgorithm::reduced_prefix;
  base.block_threads = block_threads;
  base.tile = layout->tile;
  base.stages = layout->stages;
  base.shared_bytes = layout->total_bytes;
  const double chunks = static_cast<double>(s.g.chunks);
  const double windows = static_cast<double>(s.g.windows);
  const bool scans = s.g.full_chunks > 0;
  const double partial_arrays = (scans ? 1.0 : 0.0) + (s.g.rest != 0 || !scans ? 1.0 : 0.0);
  const auto consider = [&](CountPlan plan) {
    if (plan.workspace_bytes > d.free_memory) return;
    if (!best || plan.predicted_seconds < best->predicted_seconds) best = plan;
  };
  // As in the paper: slicing, CUB's scan over C, expansion.
  {
    CountPlan plan = base;
    plan.workspace_bytes = workspace_bytes(CountAlgorithm::reduced_prefix, p);
    const double slice = tile_seconds(s, *layout, d, partials_costs, 0,
                                      chunks * s.acc_bytes * partial_arrays - (scans ? 0.0 : s.out_bytes));
    const double scan = scans ? safe_div(chunks * s.acc_bytes, d.read_bandwidth * scan_efficiency) +
                                    safe_div(chunks * s.acc_bytes, d.write_bandwidth * scan_efficiency)
                              : 0;
    const double expand = scans ? safe_div(chunks * s.acc_bytes * partial_arrays, d.read_bandwidth) +
                                      safe_div(s.out_bytes, d.write_bandwidth)
                                : 0;
    plan.predicted_seconds = slice + scan + expand + launches(d, scans ? 5 : 2);
    consider(plan);
  }
  // Tile-local running totals at chunk starts (and head ends), CUB over the tile totals only.
  if (scans) {
    CountPlan plan = base;
    plan.reduced = ReducedVariant::tile_scan;
    plan.workspace_bytes = tile_scan_workspace_bytes(p, layout->tile);
    const double arrays = s.g.rest != 0 ? 2.0 : 1.0;  // running totals at starts (and head ends)
    const double slice =
        tile_seconds(s, *layout, d, tile_scan_costs, 0, chunks * s.acc_bytes * arrays - s.out_bytes);
    // The end of window k is the start of chunk k + q: with r = 0 one array serves both reads.
    const double reads = (s.g.rest != 0 ? 2.0 : 1.0) * windows * s.acc_bytes;
    const double expand = safe_div(reads, d.read_bandwidth * stream_efficiency) +
                          safe_div(s.out_bytes, d.write_bandwidth * stream_efficiency);
    plan.predicted_seconds = slice + expand + launches(d, 4);
    consider(plan);
  }
  if (!best)
    return {std::nullopt,
            "REDUCED-PREFIX needs " + std::to_string(workspace_bytes(CountAlgorithm::reduced_prefix, p)) +
                " bytes of device memory for its partials, " + std::to_string(d.free_memory) + " are free"};
  return {best, {}};
}

}  // namespace

DeviceProfile reference_h100_profile() {
  DeviceProfile d;
  d.name = "reference H100 (synthetic)";
  d.multiprocessors = 132;
  d.shared_per_block = 232448;
  d.shared_per_sm = 233472;
  d.l2_bytes = 50u << 20;
  d.free_memory = std::uint64_t{76} << 30;
  d.read_bandwidth = 3.1e12;
  d.write_bandwidth = 2.9e12;
  d.global_atomic_rate = 1.0e11;
  d.contended_atomic_rate = 2.5e10;
  d.shared_atomic_rate = 2.0e12;
  d.instruction_rate = 132.0 * 128 * 1.755e9;
  d.launch_seconds = 4e-6;
  return d;
}

std::string CountPlan::describe() const {
  char buf[160];
  switch (algorithm) {
    case CountAlgorithm::coop:
    case CountAlgorithm::reduced_prefix:
      if (heads)
        std::snprintf(buf, sizeof buf, "%s (windows read directly, %u lanes x %u piece%s each)",
                      std::string(to_string(algorithm)).c_str(), group, pieces, pieces == 1 ? "" : "s");
      else
        std::snprintf(buf, sizeof buf, "%s (%stile %llu, %u stage%s, %u threads, %.1f KiB shared)",
                      std::string(to_string(algorithm)).c_str(),
                      algorithm != CountAlgorithm::reduced_prefix ? ""
                      : reduced == ReducedVariant::tile_scan      ? "scan of tile totals, "
                                                                  : "scan of chunk partials, ",
                      static_cast<unsigned long long>(tile), stages, stages == 1 ? "" : "s", block_threads,
                      shared_bytes / 1024.0);
      break;
    case CountAlgorithm::sh:
      std::snprintf(buf, sizeof buf, "sh (tile %llu, %u threads, %.1f KiB shared)",
                    static_cast<unsigned long long>(tile), block_threads, shared_bytes / 1024.0);
      break;
    default:
      std::snprintf(buf, sizeof buf, "%s (%u threads)", std::string(to_string(algorithm)).c_str(),
                    block_threads);
  }
  return buf;
}

std::uint32_t heads_group(std::uint64_t length, std::uint32_t value_bytes) {
  std::uint32_t g = 1;
  while (g < 32 && std::uint64_t{g} * 2 * 64 <= length * value_bytes) g *= 2;
  return g;
}

bool uses_heads(const CountWindowProblem& problem) {
  const ChunkGeometry g = make_geometry(problem);
  return g.full_chunks == 0 && (g.slide - g.length) * size_of(problem.type) >= 64;
}

std::uint64_t workspace_bytes(CountAlgorithm algorithm, const CountWindowProblem& problem) {
  const ChunkGeometry g = make_geometry(problem);
  const std::uint64_t ab = size_of(problem.output_type());
  if (g.windows == 0) return 0;
  switch (algorithm) {
    case CountAlgorithm::direct_prefix:
      return (g.used + 1) * ab + cub_scan_scratch(g.used);
    case CountAlgorithm::reduced_prefix: {
      if (uses_heads(problem)) return 0;
      const std::uint64_t arrays = (g.full_chunks > 0 ? 2 : 0) + (g.rest != 0 || g.full_chunks == 0 ? 1 : 0);
      return arrays * (g.chunks + 1) * ab + cub_scan_scratch(g.chunks);
    }
    case CountAlgorithm::block_scan:
      return 2 * g.used * accumulator_bytes(problem) + cub_scan_scratch(g.used);
    default:
      return 0;
  }
}

std::string missing_trait(CountAlgorithm algorithm, AggregateKind kind) {
  const std::string what = std::string(to_string(algorithm)) + " cannot run " + std::string(to_string(kind));
  switch (algorithm) {
    case CountAlgorithm::gbl:
    case CountAlgorithm::sh:
    case CountAlgorithm::coop:
      if (!has_device_atomic(kind))
        return what + ": it combines windows with device atomics (sum, count, min, max only)";
      return {};
    case CountAlgorithm::direct_prefix:
    case CountAlgorithm::reduced_prefix:
      if (!is_invertible(kind)) return what + ": it needs an invertible function (sum or count)";
      return {};
    case CountAlgorithm::block_scan:  // an associative combine is all it needs
    case CountAlgorithm::automatic:
      break;
  }
  return {};
}

void check_count_algorithm(CountAlgorithm algorithm, AggregateKind kind) {
  if (algorithm != CountAlgorithm::automatic) {
    if (const std::string why = missing_trait(algorithm, kind); !why.empty())
      throw Error::unsupported(why + "; name another algorithm or auto");
    return;
  }
  for (CountAlgorithm a : all_count_algorithms)
    if (missing_trait(a, kind).empty()) return;
  throw Error::unsupported("no GPU count-window algorithm runs " + std::string(to_string(kind)) +
                           " (every one needs a device atomic or an inverse); use --device cpu");
}

PlanResult plan_count_window(CountAlgorithm algorithm, const CountWindowProblem& problem,
                             const DeviceProfile& profile) {
  if (algorithm != CountAlgorithm::automatic)
    if (std::string why = missing_trait(algorithm, problem.kind); !why.empty()) return {std::nullopt, why};
  switch (algorithm) {
    case CountAlgorithm::gbl:
      return plan_gbl(problem, profile);
    case CountAlgorithm::sh:
      return plan_sh(problem, profile);
    case CountAlgorithm::coop:
      return plan_coop(problem, profile);
    case CountAlgorithm::direct_prefix:
      return plan_direct_prefix(problem, profile);
    case CountAlgorithm::reduced_prefix:
      return plan_reduced_prefix(problem, profile);
    case CountAlgorithm::block_scan:
      return plan_block_scan(problem, profile);
    case CountAlgorithm::automatic:
      break;
  }
  throw Error::internal("plan_count_window called with 'automatic'");
}

bool can_run(CountAlgorithm algorithm, const CountWindowProblem& problem, const DeviceProfile& profile) {
  return plan_count_window(algorithm, problem, profile).plan.has_value();
}

std::vector<std::pair<CountAlgorithm, PlanResult>> plan_all(const CountWindowProblem& problem,
                                                            const DeviceProfile& profile) {
  std::vector<std::pair<CountAlgorithm, PlanResult>> out;
  for (CountAlgorithm a : all_count_algorithms) out.emplace_back(a, plan_count_window(a, problem, profile));
  return out;
}

CountPlan select_count_window(CountAlgorithm algorithm, const CountWindowProblem& problem,
                              const DeviceProfile& profile) {
  problem.spec.validate();
  check_count_algorithm(algorithm, problem.kind);
  if (algorithm != CountAlgorithm::automatic) {
    PlanResult r = plan_count_window(algorithm, problem, profile);
    if (!r.plan) throw Error::unsupported(r.reason);
    return *r.plan;
  }
  std::optional<CountPlan> best;
  for (auto& [a, r] : plan_all(problem, profile))
    if (r.plan && (!best || r.plan->predicted_seconds < best->predicted_seconds)) best = r.plan;
  if (!best) throw Error::internal("no count-window algorithm can run (COOP-OPT always should)");
  return *best;
}

}  // namespace sextant::window
