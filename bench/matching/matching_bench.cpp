// The experiments of paper 002 (section 4 and appendix B) for the Matcher (api/matcher.hpp) on the
// CPU's cores, a GPU or all devices:
//
//   matching_bench [--experiment default|attributes|constraints|constraints25k|filters|interfaces|
//                                names|zipf|numeric|batch|changes|all]
//                  [--mode latency|throughput|both] [--devices cpu|gpu0|all|...] [--threads T]
//                  [--batch B] [--piece P] [--prepare-helpers H] [--page-locked 0|1]
//                  [--events N] [--repeats R] [--scale S] [--csv F]
//
// Every point builds its workload with the generator (datagen/pubsub_generator.hpp; the paper's
// default scenario, Table 1, changed along one parameter) and measures:
//   latency     the events one at a time on the calling thread (section 4.1): mean, median, p99
//               of the per-event time over --repeats passes of --events events;
//   throughput  batches of --batch events on every selected device (section 4.2, appendix B.3):
//               events/s, the median of --repeats passes, and where a batch's time went (the
//               scheduler's statistics: the device team's part, each device's busy time and
//               chunks; the rest is the caller's event preparation and results);
//   build       the time to add the whole workload (appendix B.1, "deployment");
//   changes     (experiment changes) the amortised time of single adds and removes, and the
//               longest batch while another thread keeps changing filters.
// Sweeps (paper figure): attributes per event (6), constraints per filter at 1M constraints (7),
// at 25k filters (11a), filters per interface (8), interfaces (9), names (12), Zipf names (table
// 3), numeric share (13), batch size (appendix B.3). --scale S multiplies every filter count (a
// quick pass: 0.1). Prints one table; --csv writes every point (plot with plot_matching.py).
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "api/matcher.hpp"
#include "cli/arguments.hpp"
#include "core/atomic_file.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/stopwatch.hpp"
#include "datagen/pubsub_generator.hpp"

namespace {

using namespace sextant;
using namespace sextant::matching;

struct Point {
  std::string experiment;
  std::string x;
  datagen::PubSubSpec spec;
};

struct Measured {
  std::size_t filters = 0, constraints = 0;
  double build_s = 0;
  double latency_mean_ms = 0, latency_median_ms = 0, latency_p99_ms = 0;
  double throughput = 0;        // events/s
  double latency_cpu_ms = 0;    // thread CPU time per event, one at a time
  double cpu_us_per_event = 0;  // process CPU time per event in batches (all threads)
  double add_us = 0, remove_us = 0, longest_batch_ms = 0, median_batch_ms = 0;
  std::string breakdown;                     // where_the_time_goes, throughput mode
  double add_cpu_us = 0, remove_cpu_us = 0;  // thread CPU time per single change
  double matches_per_event = 0;
};

struct Settings {
  MatcherOptions options;
  std::string devices = "cpu";
  bool latency = true, throughput = true;
  std::size_t batch = 4096;
  std::uint64_t events = 1000;
  int repeats = 5;
  double scale = 1;
};

// CPU time of the calling thread and of the process (seconds): on a shared machine the per-event
// work is read from these as well as from the wall clock.
double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double process_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<Point> points(const std::string& experiment, const Settings& s) {
  std::vector<Point> out;
  const auto base = [&] {
    datagen::PubSubSpec spec;
    spec.events = s.events;
    spec.min_filters = static_cast<std::uint64_t>(static_cast<double>(spec.min_filters) * s.scale);
    spec.max_filters = static_cast<std::uint64_t>(static_cast<double>(spec.max_filters) * s.scale);
    return spec;
  };
  const bool all = experiment == "all";
  if (all || experiment == "default") out.push_back({"default", "table1", base()});
  if (all || experiment == "attributes")
    for (std::uint32_t m = 2; m <= 8; ++m) {
      Point p{"attributes", std::to_string(m), base()};
      p.spec.min_attributes = m - 1;
      p.spec.max_attributes = m + 1;
      out.push_back(p);
    }
  if (all || experiment == "constraints")
    for (std::uint32_t m : {1u, 2u, 4u, 6u, 8u}) {  // 1M constraints in all (fig. 7)
      Point p{"constraints", std::to_string(m), base()};
      p.spec.min_constraints = m == 1 ? 1 : m - 1;
      p.spec.max_constraints = m == 1 ? 1 : m + 1;
      p.spec.set_total_constraints(static_cast<std::uint64_t>(1000000 * s.scale));
      out.push_back(p);
    }
  if (all || experiment == "constraints25k")
    for (std::uint32_t m : {1u, 2u, 4u, 6u, 8u}) {  // 25k filters in all (fig. 11a)
      Point p{"constraints25k", std::to_string(m), base()};
      p.spec.min_constraints = m == 1 ? 1 : m - 1;
      p.spec.max_constraints = m == 1 ? 1 : m + 1;
      p.spec.min_filters = static_cast<std::uint64_t>(2250 * s.scale);
      p.spec.max_filters = static_cast<std::uint64_t>(2750 * s.scale);
      out.push_back(p);
    }
  if (all || experiment == "filters")
    for (std::uint64_t f : {1000ull, 10000ull, 25000ull, 50000ull, 100000ull, 250000ull}) {  // fig. 8
      Point p{"filters", std::to_string(f), base()};
      p.spec.min_filters = static_cast<std::uint64_t>(static_cast<double>(f) * 0.9 * s.scale);
      p.spec.max_filters = static_cast<std::uint64_t>(static_cast<double>(f) * 1.1 * s.scale);
      out.push_back(p);
    }
  if (all || experiment == "interfaces")
    for (std::uint32_t i : {10u, 25u, 50u, 75u, 100u}) {  // fig. 9
      Point p{"interfaces", std::to_string(i), base()};
      p.spec.interfaces = i;
      out.push_back(p);
    }
  if (all || experiment == "names")
    for (std::uint32_t n : {10u, 30u, 100u, 300u, 1000u}) {  // fig. 12
      Point p{"names", std::to_string(n), base()};
      p.spec.names = n;
      out.push_back(p);
    }
  if (all || experiment == "zipf")
    for (double z : {0.0, 0.5, 1.0, 1.5}) {  // table 3 (the paper gives no theta)
      Point p{"zipf", format_number(z), base()};
      p.spec.zipf = z;
      out.push_back(p);
    }
  if (all || experiment == "numeric")
    for (double share : {0.0, 0.25, 0.5, 0.75, 1.0}) {  // fig. 13
      Point p{"numeric", format_number(share), base()};
      p.spec.numeric_share = share;
      out.push_back(p);
    }
  if (experiment == "batch" || experiment == "changes") out.push_back({experiment, "table1", base()});
  if (out.empty())
    throw Error::argument(
        "--experiment", experiment,
        "default|attributes|constraints|constraints25k|filters|interfaces|names|zipf|numeric|batch|"
        "changes|all");
  return out;
}

// Where a batch's time went in the timed passes (the scheduler's statistics, after minus before):
// the wall time per batch, the part inside the device team's runs, and each device's busy time
// and chunks per batch; the rest is the caller's (event preparation, results, table sync).
std::string where_the_time_goes(const scheduler::Statistics& after, const scheduler::Statistics& before,
                                double wall, double batches) {
  if (batches <= 0) return {};
  char line[256];
  std::snprintf(line, sizeof line, "per batch %.3f ms, in the team %.3f ms;", 1e3 * wall / batches,
                1e3 * (after.wall_seconds - before.wall_seconds) / batches);
  std::string out = line;
  const std::vector<scheduler::DeviceStats> was = before.devices();
  for (const scheduler::DeviceStats& d : after.devices()) {
    double busy = d.busy_seconds;
    std::size_t tasks = d.tasks;
    for (const scheduler::DeviceStats& b : was)
      if (b.device == d.device) {
        busy -= b.busy_seconds;
        tasks -= b.tasks;
      }
    std::snprintf(line, sizeof line, " %s busy %.3f ms in %.1f chunks;", to_string(d.device).c_str(),
                  1e3 * busy / batches, static_cast<double>(tasks) / batches);
    out += line;
  }
  return out;
}

Measured measure(const Point& p, const Settings& s, Matcher& matcher, const EventBatch& events) {
  Measured m;
  if (s.latency) {
    std::vector<double> each;
    each.reserve(events.size() * static_cast<std::size_t>(s.repeats));
    double total = 0;
    std::size_t matched = 0;
    const double cpu0 = thread_cpu();
    for (int r = 0; r < s.repeats; ++r) {
      MatchResults out;
      for (std::size_t i = 0; i < events.size(); ++i) {
        Stopwatch sw;
        matcher.match_one(events, i, false, out);
        each.push_back(sw.seconds());
        total += each.back();
      }
      matched = out.interfaces.size();
    }
    m.latency_cpu_ms =
        1e3 * (thread_cpu() - cpu0) / static_cast<double>(std::max<std::size_t>(each.size(), 1));
    std::sort(each.begin(), each.end());
    m.latency_mean_ms = 1e3 * total / static_cast<double>(std::max<std::size_t>(each.size(), 1));
    m.latency_median_ms = 1e3 * each[each.size() / 2];
    m.latency_p99_ms = 1e3 * each[static_cast<std::size_t>(0.99 * static_cast<double>(each.size() - 1))];
    m.matches_per_event = static_cast<double>(matched) / static_cast<double>(events.size());
  }
  if (s.throughput) {
    std::vector<double> rates, cpu;
    scheduler::Statistics stats_before;
    double timed_wall = 0;
    double batches = 0;
    // The first pass warms up (and lets the scheduler pick variants).
    for (int r = 0; r < s.repeats + 1; ++r) {
      MatchResults out;
      if (r == 1) stats_before = matcher.statistics();
      const double cpu0 = process_cpu();
      Stopwatch sw;
      for (std::size_t b = 0; b < events.size(); b += s.batch)
        matcher.match(events, b, std::min(events.size(), b + s.batch), false, out);
      if (r > 0) timed_wall += sw.seconds();
      if (r > 0) batches += std::ceil(static_cast<double>(events.size()) / static_cast<double>(s.batch));
      if (r > 0) rates.push_back(static_cast<double>(events.size()) / sw.seconds());
      if (r > 0) cpu.push_back(1e6 * (process_cpu() - cpu0) / static_cast<double>(events.size()));
      m.matches_per_event = static_cast<double>(out.interfaces.size()) / static_cast<double>(events.size());
    }
    m.throughput = median(rates);
    m.cpu_us_per_event = median(cpu);
    m.breakdown = where_the_time_goes(matcher.statistics(), stats_before, timed_wall, batches);
  }
  (void)p;
  return m;
}

// Single adds and removes (amortised), and the longest batch while another thread changes filters.
void measure_changes(const Settings& s, Matcher& matcher, const EventBatch& events, Measured& m) {
  datagen::PubSubSpec extra;
  extra.min_filters = extra.max_filters = 2000;
  extra.interfaces = 1;
  extra.seed = 99;
  const FilterSet more = datagen::generate_filters(extra);
  std::vector<Filter> singles;
  for (std::size_t i = 0; i < more.size(); ++i) {
    Filter f = more.filter(i);
    f.id += FilterId{1} << 48;
    singles.push_back(std::move(f));
  }
  // Applied on this thread (no batch runs): its CPU time is the cost, whatever else the machine runs.
  Stopwatch sw;
  double cpu0 = thread_cpu();
  for (const Filter& f : singles) matcher.add(f);
  matcher.constraints();  // applies them
  m.add_us = 1e6 * sw.seconds() / static_cast<double>(singles.size());
  m.add_cpu_us = 1e6 * (thread_cpu() - cpu0) / static_cast<double>(singles.size());
  sw.restart();
  cpu0 = thread_cpu();
  for (const Filter& f : singles) matcher.remove(f.id);
  matcher.constraints();
  m.remove_us = 1e6 * sw.seconds() / static_cast<double>(singles.size());
  m.remove_cpu_us = 1e6 * (thread_cpu() - cpu0) / static_cast<double>(singles.size());
  // Batches while another thread adds and removes filters one at a time.
  std::atomic<bool> stop{false};
  std::thread changer([&] {
    while (!stop.load()) {
      std::size_t added = 0;
      for (; added < singles.size() && !stop.load(); ++added) matcher.add(singles[added]);
      for (std::size_t i = 0; i < added; ++i) matcher.remove(singles[i].id);
    }
  });
  std::vector<double> batches;
  for (int r = 0; r < s.repeats; ++r) {
    MatchResults out;
    for (std::size_t b = 0; b < events.size(); b += s.batch) {
      Stopwatch one;
      matcher.match(events, b, std::min(events.size(), b + s.batch), false, out);
      batches.push_back(one.seconds());
    }
  }
  stop = true;
  changer.join();
  m.longest_batch_ms = 1e3 * *std::max_element(batches.begin(), batches.end());
  m.median_batch_ms = 1e3 * median(batches);
}

std::string op_mix(const datagen::PubSubSpec& spec) {
  std::string out = datagen::to_string(spec.numeric_ops);
  if (spec.numeric_share < 1) out += " strings " + datagen::to_string(spec.string_ops);
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Arguments args(
      "matching_bench",
      {{"experiment", "E",
        "default|attributes|constraints|constraints25k|filters|interfaces|names|zipf|numeric|batch|"
        "changes|all (default: default)"},
       {"mode", "M", "latency|throughput|both (default both)"},
       {"devices", "LIST", "cpu|gpu0|all|... (default cpu)"},
       {"threads", "T", "CPU cores that match in throughput mode (default every core)"},
       {"batch", "B", "events per batch in throughput mode (default 4096)"},
       {"piece", "P", "events per piece of a batch (MatcherOptions::max_batch; default: the Matcher's)"},
       {"prepare-helpers", "H",
        "threads besides the caller that prepare events (MatcherOptions::prepare_helpers; default -1: the "
        "Matcher's)"},
       {"page-locked", "0|1",
        "prepared events in page-locked memory when a GPU matches (MatcherOptions::page_locked_events; "
        "default 1)"},
       {"events", "N", "events per pass (default 1000, the paper's)"},
       {"repeats", "R", "passes per point (default 5)"},
       {"scale", "S", "multiplies every filter count (default 1)"},
       {"csv", "F", "write every point as CSV"},
       {"help", "", "this text"}});
  args.parse(argc, argv, 1);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  Settings s;
  s.devices = args.get_or("devices", "cpu");
  s.options.devices = parse_devices("--devices", s.devices);
  s.options.threads = static_cast<int>(args.get_int("threads", 0, 0, 4096));
  s.options.max_batch = static_cast<std::size_t>(args.get_int("piece", 0, 0, 1 << 26));
  s.options.prepare_helpers = static_cast<int>(args.get_int("prepare-helpers", -1, -1, 256));
  s.options.page_locked_events = args.get_int("page-locked", 1, 0, 1) == 1;
  const std::string mode = args.get_or("mode", "both");
  if (mode != "latency" && mode != "throughput" && mode != "both")
    throw Error::argument("--mode", mode, "latency, throughput or both");
  s.latency = mode != "throughput";
  s.throughput = mode != "latency";
  s.batch = static_cast<std::size_t>(args.get_int("batch", 4096, 1, 1 << 26));
  s.events = static_cast<std::uint64_t>(args.get_int("events", 1000, 1, 1LL << 30));
  s.repeats = static_cast<int>(args.get_int("repeats", 5, 1, 1000));
  const std::string scale = args.get_or("scale", "1");
  s.scale = std::stod(scale);
  if (!(s.scale > 0 && s.scale <= 10)) throw Error::argument("--scale", scale, "0 < S <= 10");
  const std::string experiment = args.get_or("experiment", "default");
  if (experiment == "changes") s.latency = false;

  std::string csv =
      "experiment,x,devices,filters,constraints,op_mix,build_s,latency_mean_ms,latency_median_ms,latency_p99_"
      "ms,"
      "latency_cpu_ms,events_per_s,cpu_us_per_event,batch,matches_per_event,add_us,add_cpu_us,remove_us,"
      "remove_cpu_us,median_batch_ms,longest_batch_ms,time_per_batch\n";
  std::printf("%-15s %-7s %9s %9s %8s %10s %10s %10s %10s %12s %9s %7s %8s\n", "experiment", "x", "filters",
              "constr.", "build s", "lat ms", "lat p50", "lat p99", "lat cpu ms", "events/s", "cpu us/ev",
              "batch", "match/ev");
  std::vector<std::size_t> batches = {s.batch};
  if (experiment == "batch") batches = {64, 256, 1024, 4096, 16384, 65536};
  for (const Point& p : points(experiment, s)) {
    const FilterSet filters = datagen::generate_filters(p.spec);
    datagen::PubSubSpec ev = p.spec;
    if (experiment == "batch" || experiment == "changes")
      ev.events = std::max<std::uint64_t>(ev.events, 65536);
    const EventBatch events = datagen::generate_events(ev);
    Matcher matcher(s.options);
    Stopwatch sw;
    matcher.add(filters);
    Measured base;
    base.constraints = matcher.constraints();
    base.build_s = sw.seconds();
    base.filters = filters.size();
    for (const std::size_t batch : batches) {
      Settings here = s;
      here.batch = batch;
      if (experiment == "batch") here.latency = false;
      Measured m = experiment == "changes" ? Measured{} : measure(p, here, matcher, events);
      m.filters = base.filters;
      m.constraints = base.constraints;
      m.build_s = base.build_s;
      if (experiment == "changes") measure_changes(here, matcher, events, m);
      std::printf("%-15s %-7s %9zu %9zu %8.3f %10.5f %10.5f %10.5f %10.5f %12.0f %9.3f %7zu %8.3f",
                  p.experiment.c_str(), p.x.c_str(), m.filters, m.constraints, m.build_s, m.latency_mean_ms,
                  m.latency_median_ms, m.latency_p99_ms, m.latency_cpu_ms, m.throughput, m.cpu_us_per_event,
                  batch, m.matches_per_event);
      if (experiment == "changes")
        std::printf(
            "  add %.2f us (cpu %.2f), remove %.2f us (cpu %.2f), batch median %.3f ms, longest %.3f ms "
            "while changing",
            m.add_us, m.add_cpu_us, m.remove_us, m.remove_cpu_us, m.median_batch_ms, m.longest_batch_ms);
      std::printf("\n");
      if (!m.breakdown.empty()) std::printf("#     %s\n", m.breakdown.c_str());
      std::fflush(stdout);
      char row[1536];
      std::snprintf(row, sizeof row,
                    "%s,%s,%s,%zu,%zu,\"%s\",%.4f,%.6f,%.6f,%.6f,%.6f,%.1f,%.4f,%zu,%.4f,%.3f,%.3f,%.3f,%.3f,"
                    "%.4f,%.4f,\"%s\"\n",
                    p.experiment.c_str(), p.x.c_str(), s.devices.c_str(), m.filters, m.constraints,
                    op_mix(p.spec).c_str(), m.build_s, m.latency_mean_ms, m.latency_median_ms,
                    m.latency_p99_ms, m.latency_cpu_ms, m.throughput, m.cpu_us_per_event, batch,
                    m.matches_per_event, m.add_us, m.add_cpu_us, m.remove_us, m.remove_cpu_us,
                    m.median_batch_ms, m.longest_batch_ms, m.breakdown.c_str());
      csv += row;
    }
    std::printf("#   %s | ops %s | %s\n", p.spec.describe().c_str(), op_mix(p.spec).c_str(),
                matcher.describe().c_str());
  }
  if (const auto path = args.get("csv")) {
    AtomicFile file(*path);
    file.stream() << csv;
    file.commit();
  }
  return 0;
} catch (const sextant::Error& e) {
  std::fprintf(stderr, "matching_bench: error: %s\n", e.what());
  return sextant::exit_code(e.kind());
}
