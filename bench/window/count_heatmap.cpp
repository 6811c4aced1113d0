// The paper's heat map (paper 001, figure 3) on the GPU in use: W and S over 2^a .. 2^b, int32
// sum (or max, argmax) over a column already in device memory (default 4 GiB), every algorithm and the
// selector, CUDA-event timing, median of repeats, GB/s of input consumed (n * 4 bytes / time).
//
//   count_heatmap [--bytes 4G] [--min-exp 2] [--max-exp 20] [--repeats 3] [--budget-ms 150]
//                 [--algorithms gbl,sh,coop,direct-prefix,reduced-prefix/chunk-scan,
//                               reduced-prefix/tile-scan,block-scan,auto] [--csv F] [--seed S]
//                 [--reference-gbps 3100] [--agg sum|max|argmax]
//
// A cell whose cost-model prediction exceeds --budget-ms is recorded as skipped (GBL and SH at
// large fan-outs would take minutes); a cell that cannot run (SH beyond shared memory, a prefix
// algorithm for a non-invertible function) as n/a. Each measured cell is spot-checked: three
// windows are recomputed on the host from the device input, then the timed runs of a cell's
// entries are interleaved round robin. Prints one table per algorithm
// (GB/s, rows W, columns S), writes every cell to the CSV, and ends with a summary against
// the reference bandwidth.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "gpu/device_query.hpp"
#include "gpu/window/count_window_gpu.hpp"
#include "templates/window/count_window_planner.hpp"

namespace {

using namespace sextant;
using window::CountAlgorithm;

struct Cell {
  std::uint64_t w = 0, s = 0;
  std::string algorithm;
  std::string status;  // ok, n/a, skipped, failed
  std::string plan;
  double predicted_ms = 0;
  double median_ms = 0;
  double gbps = 0;
  int runs = 0;
};

std::uint64_t parse_bytes(const std::string& text) {
  std::size_t pos = 0;
  const double value = std::stod(text, &pos);
  std::string unit = text.substr(pos);
  double scale = 1;
  if (unit == "K" || unit == "KiB") scale = 1024.0;
  if (unit == "M" || unit == "MiB") scale = 1024.0 * 1024;
  if (unit == "G" || unit == "GiB") scale = 1024.0 * 1024 * 1024;
  return static_cast<std::uint64_t>(value * scale);
}

// An entry of --algorithms: an algorithm, for REDUCED-PREFIX optionally one configuration
// ("reduced-prefix/chunk-scan", "reduced-prefix/tile-scan").
struct Entry {
  CountAlgorithm algorithm;
  std::optional<window::ReducedVariant> variant;
  std::string name;
};

std::vector<Entry> parse_algorithms(const std::string& text) {
  std::vector<Entry> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    Entry e{};
    if (const auto slash = item.find('/'); slash != std::string::npos) {
      const std::string v = item.substr(slash + 1);
      if (v == "chunk-scan")
        e.variant = window::ReducedVariant::chunk_scan;
      else if (v == "tile-scan")
        e.variant = window::ReducedVariant::tile_scan;
      else
        throw Error::argument("--algorithms", item, "reduced-prefix/chunk-scan or reduced-prefix/tile-scan",
                              "unknown configuration");
      e.algorithm = window::parse_count_algorithm("--algorithms", item.substr(0, slash));
    } else {
      e.algorithm = window::parse_count_algorithm("--algorithms", item);
    }
    e.name = e.algorithm == CountAlgorithm::automatic ? "selector" : item;
    out.push_back(e);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Recomputes windows first, middle and last on the host (sum, max, or argmax with its
// position: the first of equal values); empty when they match.
std::string spot_check(const window::gpu::DeviceColumn& in, const window::gpu::DeviceColumn& out,
                       const window::gpu::DeviceColumn& positions, window::AggregateKind kind,
                       std::uint64_t windows, std::uint64_t w, std::uint64_t s) {
  for (std::uint64_t k : {std::uint64_t{0}, windows / 2, windows - 1}) {
    const auto values = std::get<sextant::ColumnVector<std::int32_t>>(in.download(k * s, w));
    std::int64_t want = 0, got = 0;
    std::int64_t want_at = -1, got_at = -1;
    if (kind == window::AggregateKind::sum) {
      for (std::int32_t v : values) want += v;
      got = std::get<sextant::ColumnVector<std::int64_t>>(out.download(k, 1)).at(0);
    } else {
      const auto best = std::max_element(values.begin(), values.end());  // the first largest
      want = *best;
      got = std::get<sextant::ColumnVector<std::int32_t>>(out.download(k, 1)).at(0);
      if (kind == window::AggregateKind::argmax) {
        want_at = static_cast<std::int64_t>(k * s) + (best - values.begin());
        got_at = std::get<sextant::ColumnVector<std::int64_t>>(positions.download(k, 1)).at(0);
      }
    }
    if (got != want || got_at != want_at)
      return "window " + std::to_string(k) + ": got " + std::to_string(got) + " at " +
             std::to_string(got_at) + ", want " + std::to_string(want) + " at " + std::to_string(want_at);
  }
  return {};
}

void print_table(const std::vector<Cell>& cells, const std::string& algorithm,
                 const std::vector<std::uint64_t>& ws, const std::vector<std::uint64_t>& ss) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, const Cell*> at;
  for (const Cell& c : cells)
    if (c.algorithm == algorithm) at[{c.w, c.s}] = &c;
  std::printf("\n%s: GB/s of input (rows W = 2^i, columns S = 2^j; '-' n/a, 'skip' predicted too slow)\n",
              algorithm.c_str());
  std::printf("  W\\S ");
  for (std::uint64_t s : ss) std::printf("%6d", static_cast<int>(std::log2(static_cast<double>(s))));
  std::printf("\n");
  for (std::uint64_t w : ws) {
    std::printf("  %4d ", static_cast<int>(std::log2(static_cast<double>(w))));
    for (std::uint64_t s : ss) {
      const auto it = at.find({w, s});
      if (it == at.end()) {
        std::printf("%6s", "");
      } else if (it->second->status == "ok") {
        std::printf("%6.0f", it->second->gbps);
      } else {
        std::printf("%6s", it->second->status == "skipped" ? "skip"
                           : it->second->status == "n/a"   ? "-"
                                                           : "FAIL");
      }
    }
    std::printf("\n");
  }
}

// Two plan descriptions that launch the same kernel with the same configuration: equal, or
// both "windows read directly" with the same lanes (COOP-OPT and REDUCED-PREFIX then run the
// very same heads kernel, gpu/window/heads_kernel.cuh, and differ only in name).
bool same_launch(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto direct = [](const std::string& p) {
    return p.find("windows read directly") != std::string::npos;
  };
  return direct(a) && direct(b) && a.substr(a.find(" (")) == b.substr(b.find(" ("));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    cli::Arguments args(
        "count_heatmap",
        {{"bytes", "B", "input size (suffix K/M/G; default 4G)"},
         {"min-exp", "A", "smallest W and S is 2^A (default 2)"},
         {"max-exp", "B", "largest W and S is 2^B (default 20)"},
         {"repeats", "R", "timed runs per cell, after one warm-up (default 3)"},
         {"budget-ms", "T", "skip cells the cost model predicts slower than T ms (default 150)"},
         {"algorithms", "LIST",
          "default "
          "gbl,sh,coop,direct-prefix,reduced-prefix/chunk-scan,reduced-prefix/tile-scan,block-scan,auto"},
         {"agg", "F", "sum (default, as in the paper), max or argmax"},
         {"csv", "F", "write every cell to F"},
         {"seed", "S", "input seed (default 1)"},
         {"reference-gbps", "G", "the device's read bandwidth for the summary (default 3100)"},
         {"help", "", "this text"}});
    args.parse(argc, argv, 1);
    if (args.has("help")) {
      std::fputs(args.usage().c_str(), stdout);
      return 0;
    }
    const std::uint64_t bytes = parse_bytes(args.get_or("bytes", "4G"));
    const int min_exp = static_cast<int>(args.get_int("min-exp", 2, 0, 40));
    const int max_exp = static_cast<int>(args.get_int("max-exp", 20, min_exp, 40));
    const int repeats = static_cast<int>(args.get_int("repeats", 3, 1, 100));
    const double budget_ms = static_cast<double>(args.get_int("budget-ms", 150, 1, 1000000));
    const auto algorithms = parse_algorithms(args.get_or(
        "algorithms",
        "gbl,sh,coop,direct-prefix,reduced-prefix/chunk-scan,reduced-prefix/tile-scan,block-scan,auto"));
    const auto seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1LL << 62));
    const window::AggregateKind kind = window::parse_aggregate("--agg", args.get_or("agg", "sum"));
    if (kind != window::AggregateKind::sum && kind != window::AggregateKind::max &&
        kind != window::AggregateKind::argmax)
      throw Error::argument("--agg", args.get_or("agg", "sum"), "sum, max or argmax", "no spot check for it");
    const double reference = static_cast<double>(args.get_int("reference-gbps", 3100, 1, 1000000));
    if (gpu::device_count() < 1) throw Error::unsupported("count_heatmap needs a GPU");

    const int ordinal = 0;
    const std::uint64_t n = bytes / sizeof(std::int32_t);
    const double input_bytes = static_cast<double>(n) * sizeof(std::int32_t);
    const window::DeviceProfile& profile = window::gpu::device_profile(ordinal);
    std::printf(
        "device %s: %d SMs, measured read %.0f GB/s, write %.0f GB/s, atomics %.3g/s (GBL pattern %.3g/s), "
        "shared atomics %.3g/s, launch %.1f us\n",
        profile.name.c_str(), profile.multiprocessors, profile.read_bandwidth / 1e9,
        profile.write_bandwidth / 1e9, profile.global_atomic_rate, profile.contended_atomic_rate,
        profile.shared_atomic_rate, profile.launch_seconds * 1e6);
    std::printf(
        "input: %" PRIu64 " int32 values (%.2f GiB), %s, W and S over 2^%d .. 2^%d, median of %d runs\n", n,
        input_bytes / (1u << 30), std::string(window::to_string(kind)).c_str(), min_exp, max_exp, repeats);
    std::fflush(stdout);

    window::gpu::DeviceColumn in(ordinal, window::ValueType::int32, n);
    in.fill_random(seed);
    const std::uint64_t min_slide = std::uint64_t{1} << min_exp;
    window::gpu::DeviceColumn out(ordinal, window::result_type(window::ValueType::int32, kind),
                                  n / min_slide + 1);
    window::gpu::DeviceColumn positions(ordinal, window::ValueType::int64,
                                        window::reports_position(kind) ? n / min_slide + 1 : 0);
    window::gpu::GpuWorkspace workspace(ordinal);

    std::vector<std::uint64_t> params;
    for (int e = min_exp; e <= max_exp; ++e) params.push_back(std::uint64_t{1} << e);
    std::vector<Cell> cells;
    for (std::uint64_t w : params) {
      for (std::uint64_t s : params) {
        const window::CountWindowProblem problem{n, {w, s}, window::ValueType::int32, kind};
        const window::CountWindowArgs run_args{
            in.view(),
            window::MutableColumnView(out.mutable_view().type, out.mutable_view().data, problem.windows()),
            {w, s},
            kind,
            window::reports_position(kind) ? positions.mutable_view().as<std::int64_t>() : nullptr};
        window::DeviceProfile now = profile;  // less what this driver holds, with a margin
        const std::uint64_t held =
            static_cast<std::uint64_t>(input_bytes) + (n / min_slide + 1) * 8 + (std::uint64_t{2} << 30);
        now.free_memory = profile.free_memory - std::min(profile.free_memory, held);
        struct Pending {
          std::size_t cell;
          window::CountPlan plan;
          std::vector<double> seconds;
        };
        std::vector<Pending> pending;
        for (const Entry& entry : algorithms) {
          const CountAlgorithm a = entry.algorithm;
          Cell cell;
          cell.w = w;
          cell.s = s;
          cell.algorithm = entry.name;
          window::CountPlan plan;
          if (a == CountAlgorithm::automatic) {
            plan = window::select_count_window(a, problem, now);
          } else {
            const window::PlanResult r = window::plan_count_window(a, problem, now);
            if (!r.plan) {
              cell.status = "n/a";
              cell.plan = r.reason;
              cells.push_back(cell);
              continue;
            }
            plan = *r.plan;
            if (entry.variant) plan.reduced = *entry.variant;
          }
          cell.plan = plan.describe();
          cell.predicted_ms = plan.predicted_seconds * 1e3;
          if (cell.predicted_ms > budget_ms) {
            cell.status = "skipped";
            cells.push_back(cell);
            continue;
          }
          // One warm-up run, checked; the timed runs follow below, interleaved with the cell's other
          // entries so that drift between them (clocks, what ran just before) cancels out.
          const std::vector<double> t = window::gpu::time_plan(ordinal, plan, run_args, workspace, 0, 1);
          if (const std::string bad = spot_check(in, out, positions, kind, problem.windows(), w, s);
              !bad.empty()) {
            cell.status = "failed";
            cell.plan += " | " + bad;
            std::fprintf(stderr, "W=%" PRIu64 " S=%" PRIu64 " %s: WRONG RESULT %s\n", w, s,
                         cell.algorithm.c_str(), bad.c_str());
            cells.push_back(cell);
            continue;
          }
          // Slow cells once; cells of a few microseconds many times (launch noise dominates them).
          cell.runs = t[0] * 1e3 > 3 * budget_ms
                          ? 1
                          : std::max(repeats, static_cast<int>(std::min(51.0, std::ceil(5e-3 / t[0]))) | 1);
          cell.status = "ok";
          cells.push_back(cell);
          pending.push_back({cells.size() - 1, plan, {}});
        }
        // Round robin over the measured entries of the cell.
        for (int round = 0;; ++round) {
          bool any = false;
          for (Pending& job : pending) {
            if (round >= cells[job.cell].runs) continue;
            any = true;
            job.seconds.push_back(window::gpu::time_plan(ordinal, job.plan, run_args, workspace, 0, 1).at(0));
          }
          if (!any) break;
        }
        for (Pending& job : pending) {
          Cell& cell = cells[job.cell];
          std::sort(job.seconds.begin(), job.seconds.end());
          cell.median_ms = job.seconds[job.seconds.size() / 2] * 1e3;
          cell.gbps = input_bytes / (cell.median_ms * 1e-3) / 1e9;
        }
      }
      std::fprintf(stderr, "W=2^%d done\n", static_cast<int>(std::log2(static_cast<double>(w))));
    }

    for (const Entry& entry : algorithms) print_table(cells, entry.name, params, params);

    if (const auto path = args.get("csv")) {
      std::ofstream csv(*path);
      csv << "w,s,algorithm,status,predicted_ms,median_ms,gbps,runs,plan\n";
      for (const Cell& c : cells)
        csv << c.w << ',' << c.s << ',' << c.algorithm << ',' << c.status << ',' << c.predicted_ms << ','
            << c.median_ms << ',' << c.gbps << ',' << c.runs << ",\"" << c.plan << "\"\n";
      if (!csv) throw Error::io(*path, "write failed");
    }

    // Summary: the selector against the reference bandwidth and against the best algorithm.
    std::map<std::pair<std::uint64_t, std::uint64_t>, double> best, selector;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> best_name, best_plan, selector_plan;
    int failures = 0;
    for (const Cell& c : cells) {
      if (c.status == "failed") ++failures;
      if (c.status != "ok") continue;
      const auto key = std::make_pair(c.w, c.s);
      if (c.algorithm == "selector") {
        selector[key] = c.gbps;
        selector_plan[key] = c.plan;
      } else if (c.gbps > best[key]) {
        best[key] = c.gbps;
        best_name[key] = c.algorithm;
        best_plan[key] = c.plan;
      }
    }
    if (!selector.empty()) {
      int at_target = 0, at_target_overlap = 0, overlap_cells = 0, within = 0, same_plan = 0;
      std::string misses;
      double min_gbps = 1e30, max_gap = 0;
      std::string min_cell, gap_cell;
      const double target = 0.8 * reference;
      for (const auto& [key, gbps] : selector) {
        if (gbps >= target) ++at_target;
        if (key.second <= key.first) {
          ++overlap_cells;
          if (gbps >= target) ++at_target_overlap;
        }
        if (gbps < min_gbps) {
          min_gbps = gbps;
          min_cell = "W=" + std::to_string(key.first) + " S=" + std::to_string(key.second);
        }
        const double b = std::max(best[key], gbps);
        const double gap = 1 - gbps / b;
        if (gap <= 0.05) {
          ++within;
        } else if (same_launch(selector_plan[key], best_plan[key])) {
          ++same_plan;  // the very launch of the best entry: the gap is noise between identical runs
        } else {
          misses += "\n    W=" + std::to_string(key.first) + " S=" + std::to_string(key.second) +
                    ": selector " + selector_plan[key] + " | best " + best_name[key] + " " + best_plan[key];
        }
        if (gap > max_gap) {
          max_gap = gap;
          gap_cell = "W=" + std::to_string(key.first) + " S=" + std::to_string(key.second) + " (selector " +
                     selector_plan[key] + ", best " + best_name[key] + ")";
        }
      }
      const auto cells_n = static_cast<double>(selector.size());
      std::printf("\nSUMMARY (%zu cells, reference %.0f GB/s, target 80%% = %.0f GB/s)\n", selector.size(),
                  reference, target);
      std::printf("  selector >= target in %d/%zu cells = %.1f%% (S <= W only: %d/%d = %.1f%%)\n", at_target,
                  selector.size(), 100.0 * at_target / cells_n, at_target_overlap, overlap_cells,
                  overlap_cells ? 100.0 * at_target_overlap / overlap_cells : 0.0);
      std::printf("  selector minimum %.1f GB/s at %s\n", min_gbps, min_cell.c_str());
      std::printf("  selector within 5%% of the best algorithm in %d/%zu cells; largest gap %.1f%% at %s\n",
                  within, selector.size(), 100 * max_gap, gap_cell.c_str());
      std::printf(
          "  of the other cells, %d ran the very plan of the best entry (timing noise); %zu chose another "
          "plan:%s\n",
          same_plan, selector.size() - static_cast<std::size_t>(within + same_plan), misses.c_str());
      std::printf("  wrong results: %d\n", failures);
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "count_heatmap: error: %s\n", e.what());
    return 1;
  }
}
