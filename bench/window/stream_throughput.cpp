// The experiments of paper 000 (SPRINGALD, section VI, figures 12-17) for the stream-window
// operator on the CPU or a GPU, end to end from host memory: the stream is pre-generated as the
// paper's 32-byte tuples; each run projects them batch by batch into the operator's batch
// columns (pinned memory for a GPU), pushes and polls, and finishes the stream. Time units are
// microseconds, as in the paper; the stream advances `--rate` tuples per microsecond.
//
//   stream_throughput [--device cpu|gpu0] [--experiment batch|slide|nw|keys|aggregate|delay|threads|all]
//                     [--quick] [--tuples N] [--rate R] [--repeats R] [--threads T] [--batch KIB] [--csv F]
//
// Experiments (defaults: sum over the first int32 field, one key, W = 1 s, S = 10 ms, n_w = 100,
// batches of 4 MiB of tuples = 131072, in order, every core):
//   batch      batch size 16 KiB .. 16 MiB of tuples, W = 10 ms, 100 ms, 1 s, S = 100 us, n_w = 1 (fig. 12
//   left) slide      S = 10 us .. 100 ms, W = 10 ms, 100 ms, 1 s, n_w = 1                          (fig. 12
//   centre) nw         n_w = 1 .. 1000, S = 10 us .. 10 ms                                           (fig. 12
//   right) keys       1 .. 100 000 keys, uniform and Zipf(0.9)                                      (fig. 14)
//   aggregate  sum, count, min, max, avg, var (fig. 15), and argmin, argmax, first, last
//   delay      average delay 0 .. 1 s (uniform), S = 10 us .. 10 ms                          (fig. 16)
//   threads    1 .. every core (operator and projection), batches of 256 KiB and 4 MiB      (fig. 13)
//   fine       slide 1, one tuple per time unit, W = 2^10 and 2^20, in order and with uniform delays
//              up to W/2, one thread, batches of 4096 tuples, each window stage (bpat, scan): the
//              workload of the sliding-window aggregators (DABA Lite, FiBA), one result per tuple
// Prints one table (median of --repeats) and writes every point to the CSV (--csv; plot with
// bench/window/plot_stream.py). Throughput counts tuples in; GB/s counts their 32 bytes; "op"
// is the operator alone (push, poll, finish: the projection's time left out).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "api/machine.hpp"
#include "api/stream_window.hpp"
#include "cli/arguments.hpp"
#include "core/atomic_file.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/stopwatch.hpp"
#include "datagen/stream_generator.hpp"

namespace {

using namespace sextant;
using window::StreamAggregateKind;

constexpr std::int64_t ms = 1000;  // time units are microseconds
constexpr std::int64_t sec = 1000 * ms;
constexpr std::size_t mib_tuples = (1 << 20) / sizeof(datagen::StreamTuple);

struct Point {
  std::string experiment;
  std::string series;
  double x = 0;
  std::int64_t length = sec;
  std::int64_t slide = 10 * ms;
  std::int64_t windows_per_tree = 100;
  std::size_t batch = 4 * mib_tuples;
  StreamAggregateKind aggregate = StreamAggregateKind::sum;
  std::uint32_t keys = 1;
  double zipf = 0;
  double delay = 0;
  int threads = 0;  // 0: every core
  double rate = 0;  // tuples per time unit; 0: --rate
  window::WindowStageKind stage = window::WindowStageKind::automatic;
};

struct Measure {
  double seconds = 0;
  double project_seconds = 0;
  std::uint64_t windows = 0;
  std::uint64_t late = 0;
};

std::string duration(std::int64_t us) {
  if (us >= sec && us % sec == 0) return std::to_string(us / sec) + "s";
  if (us >= ms && us % ms == 0) return std::to_string(us / ms) + "ms";
  return std::to_string(us) + "us";
}

std::vector<Point> experiment(const std::string& name, bool quick, int cores) {
  std::vector<Point> out;
  const auto pick = [quick](std::vector<std::int64_t> full, std::vector<std::int64_t> small) {
    return quick ? small : full;
  };
  if (name == "batch") {
    for (const std::int64_t w : pick({10 * ms, 100 * ms, sec}, {10 * ms, sec}))
      for (const std::int64_t kib : pick({16, 64, 256, 1024, 4096, 16384}, {16, 256, 4096})) {
        Point p{"batch", "W=" + duration(w), static_cast<double>(kib * 1024)};
        p.length = w;
        p.slide = 100;
        p.windows_per_tree = 1;
        p.batch = static_cast<std::size_t>(kib) * 1024 / sizeof(datagen::StreamTuple);
        out.push_back(p);
      }
  } else if (name == "slide") {
    for (const std::int64_t w : pick({10 * ms, 100 * ms, sec}, {10 * ms, sec}))
      for (const std::int64_t s : pick({10, 100, ms, 10 * ms, 100 * ms}, {100, 10 * ms})) {
        Point p{"slide", "W=" + duration(w), static_cast<double>(s)};
        p.length = w;
        p.slide = s;
        p.windows_per_tree = 1;
        out.push_back(p);
      }
  } else if (name == "nw") {
    for (const std::int64_t s : pick({10, 100, ms, 10 * ms}, {100, 10 * ms}))
      for (const std::int64_t nw : pick({1, 10, 100, 1000}, {1, 100})) {
        Point p{"nw", "S=" + duration(s), static_cast<double>(nw)};
        p.slide = s;
        p.windows_per_tree = nw;
        out.push_back(p);
      }
  } else if (name == "keys") {
    for (const double zipf : {0.0, 0.9})
      for (const std::int64_t k : pick({1, 10, 100, 500, 1000, 10000, 100000}, {1, 100, 10000})) {
        Point p{"keys", zipf > 0 ? "zipf0.9" : "uniform", static_cast<double>(k)};
        p.keys = static_cast<std::uint32_t>(k);
        p.zipf = zipf;
        out.push_back(p);
      }
  } else if (name == "aggregate") {
    int i = 0;
    for (const auto kind : {StreamAggregateKind::sum, StreamAggregateKind::count, StreamAggregateKind::min,
                            StreamAggregateKind::max, StreamAggregateKind::avg, StreamAggregateKind::var,
                            StreamAggregateKind::argmin, StreamAggregateKind::argmax,
                            StreamAggregateKind::first, StreamAggregateKind::last}) {
      Point p{"aggregate", std::string(window::to_string(kind)), static_cast<double>(i++)};
      p.aggregate = kind;
      out.push_back(p);
    }
  } else if (name == "delay") {
    for (const std::int64_t s : pick({10, 100, ms, 10 * ms}, {100, 10 * ms}))
      for (const std::int64_t d : pick({0, ms, 10 * ms, 100 * ms, sec}, {0, 10 * ms, sec})) {
        Point p{"delay", "S=" + duration(s), static_cast<double>(d)};
        p.slide = s;
        p.delay = static_cast<double>(d);
        out.push_back(p);
      }
  } else if (name == "threads") {
    std::vector<int> counts;
    for (int t = 1; t < cores; t *= 2) counts.push_back(t);
    counts.push_back(cores);
    for (const std::int64_t kib : {256, 4096})
      for (const int t : counts) {
        Point p{"threads", "batch=" + std::to_string(kib) + "KiB", static_cast<double>(t)};
        p.batch = static_cast<std::size_t>(kib) * 1024 / sizeof(datagen::StreamTuple);
        p.threads = t;
        out.push_back(p);
      }
  } else if (name == "fine") {
    for (const std::int64_t w : pick({1 << 10, 1 << 20}, {1 << 10}))
      for (const std::int64_t d : {std::int64_t{0}, w / 4})
        for (const auto stage : {window::WindowStageKind::bpat, window::WindowStageKind::scan}) {
          Point p{"fine", std::string(window::to_string(stage)) + (d > 0 ? " ooo" : " in-order"),
                  static_cast<double>(w)};
          p.length = w;
          p.slide = 1;
          p.delay = static_cast<double>(d);  // uniform on [0, 2d] = [0, W/2]
          p.rate = 1;
          p.threads = 1;
          p.batch = 4096;
          p.stage = stage;
          out.push_back(p);
        }
  } else {
    throw Error::argument("--experiment", name,
                          "batch, slide, nw, keys, aggregate, delay, threads, fine or all",
                          "unknown experiment");
  }
  return out;
}

template <class T>
std::span<T> carve(const window::HostBuffer& memory, std::size_t& offset, std::size_t n) {
  const std::span<T> s(reinterpret_cast<T*>(static_cast<std::byte*>(memory.data()) + offset), n);
  offset += (n * sizeof(T) + 63) / 64 * 64;
  return s;
}

Measure run_once(const Point& p, const std::vector<datagen::StreamTuple>& tuples, std::int64_t bound,
                 DeviceId device, int default_threads, std::size_t gpu_batch) {
  window::StreamWindowOptions options;
  options.specs = {{window::WindowType::time, p.length, p.slide}};
  options.windows_per_tree = p.windows_per_tree;
  options.window_stage = p.stage;
  window::StreamDeviceOptions on;
  on.device = device;
  on.threads = p.threads > 0 ? p.threads : default_threads;
  on.max_batch = gpu_batch;
  window::StreamWindow op(window::ValueType::int32, p.aggregate, options, on);
  const std::size_t batch = std::min(p.batch, std::max<std::size_t>(tuples.size(), 1));
  const window::HostBuffer memory = op.allocate_host(batch * 24 + 256);
  std::size_t offset = 0;
  datagen::StreamColumnSpans<std::int32_t> columns;
  columns.timestamps = carve<std::int64_t>(memory, offset, batch);
  columns.watermarks = carve<std::int64_t>(memory, offset, batch);
  columns.values = carve<std::int32_t>(memory, offset, batch);
  columns.keys = carve<window::StreamKey>(memory, offset, batch);
  datagen::BoundedDelayWatermarks watermarks(bound);
  window::StreamResults results;
  Measure m;
  Stopwatch total;
  for (std::size_t first = 0; first < tuples.size(); first += batch) {
    const std::span<const datagen::StreamTuple> part(tuples.data() + first,
                                                     std::min(batch, tuples.size() - first));
    Stopwatch sw;
    const auto b = datagen::project<std::int32_t>(part, datagen::StreamField::int_value, watermarks, columns,
                                                  on.threads);
    m.project_seconds += sw.seconds();
    op.push(b);
    m.windows += op.poll(results);
    results.clear();
  }
  op.finish();
  m.windows += op.poll(results);
  m.seconds = total.seconds();
  m.late = op.counters().late_dropped;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    cli::Arguments args(
        "stream_throughput",
        {
            {"device", "cpu|gpuN", "where the operator runs (default cpu)"},
            {"experiment", "NAME",
             "batch|slide|nw|keys|aggregate|delay|threads|fine|all (default all: every one but fine)"},
            {"quick", "", "a few points and a small stream: a smoke test"},
            {"tuples", "N", "tuples per stream (default 2^26 = 2 GiB; --quick 2^18)"},
            {"rate", "R", "tuples per microsecond of event time (default 10)"},
            {"repeats", "R", "runs per point, the median is reported (default 3; --quick 1)"},
            {"threads", "T", "CPU threads of the operator and the projection (default every core)"},
            {"gpu-batch", "B", "GPU: tuples per device chunk (default the backend's)"},
            {"batch", "KIB",
             "push batches of KIB KiB of 32-byte tuples at every point (default the experiment's)"},
            {"stage", "auto|bpat|scan|dense",
             "the window stage of every point that does not name one (default auto: the cost model)"},
            {"keys", "K", "only the points with K keys (e.g. one point of the keys experiment)"},
            {"csv", "F", "write every point here (default stream_throughput_<device>.csv)"},
            {"help", "", "this text"},
        });
    args.parse(argc, argv, 1);
    if (args.has("help")) {
      std::fputs(args.usage().c_str(), stdout);
      return 0;
    }
    const DeviceId device = parse_cpu_or_gpu(
        "--device", args.get_or("device", "cpu"), [] { return api::machine().numa_nodes.size(); },
        "stream windows");
    const bool quick = args.has("quick");
    const auto n = static_cast<std::size_t>(args.get_int("tuples", quick ? 1 << 18 : 1 << 26, 1, 1LL << 34));
    const long long rate = args.get_int("rate", 10, 1, 1000000);
    const int repeats = static_cast<int>(args.get_int("repeats", quick ? 1 : 3, 1, 100));
    const int threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));
    const auto gpu_batch = static_cast<std::size_t>(args.get_int("gpu-batch", 0, 1, 1LL << 32));
    const auto batch_kib = static_cast<std::size_t>(args.get_int("batch", 0, 1, 1LL << 24));
    const int cores = threads > 0 ? threads : omp_get_max_threads();
    const std::string csv_path = args.get_or("csv", "stream_throughput_" + to_string(device) + ".csv");
    const std::string which = args.get_or("experiment", "all");

    std::vector<Point> points;
    for (const char* name : {"batch", "slide", "nw", "keys", "aggregate", "delay", "threads", "fine"})
      if ((which == "all" && std::string(name) != "fine") || which == name)
        for (const Point& p : experiment(name, quick, cores)) points.push_back(p);
    if (points.empty()) experiment(which, quick, cores);  // throws naming the experiment
    const window::WindowStageKind stage = window::parse_window_stage("--stage", args.get_or("stage", "auto"));
    for (Point& p : points)
      if (p.stage == window::WindowStageKind::automatic) p.stage = stage;
    if (args.has("keys")) {
      const auto keys = static_cast<std::uint32_t>(args.get_int("keys", 1, 1, (1LL << 32) - 1));
      std::erase_if(points, [&](const Point& p) { return p.keys != keys; });
      if (points.empty())
        throw Error::argument("--keys", std::to_string(keys),
                              "a key count of a point of --experiment " + which +
                                  " (keys: 1, 10, 100, 500, 1000, 10000, 100000; with --quick 1, 100, 10000)",
                              "no point has that many keys");
    }
    if (batch_kib > 0)
      for (Point& p : points)
        p.batch = std::max<std::size_t>(1, batch_kib * 1024 / sizeof(datagen::StreamTuple));

    std::printf(
        "# stream_throughput: device %s, %zu tuples of 32 bytes (%.2f GiB), %lld tuples/us, median of %d\n",
        to_string(device).c_str(), n, static_cast<double>(n) * 32 / (1 << 30), rate, repeats);
    std::printf("%-10s %-14s %12s %8s %8s %5s %8s %7s %6s %9s %-5s %4s %10s %7s %9s %6s %10s\n", "experiment",
                "series", "x", "W", "S", "n_w", "batch", "keys", "zipf", "delay", "agg", "thr", "Mtuples/s",
                "GB/s", "op Mt/s", "proj%", "windows");
    std::string csv =
        "device,experiment,series,x,length_us,slide_us,windows_per_tree,batch_tuples,keys,zipf,delay_us,"
        "aggregate,"
        "threads,tuples,rate_per_us,repeats,seconds,mtuples_per_s,gb_per_s,project_seconds,op_mtuples_per_s,"
        "windows,"
        "late\n";
    std::vector<datagen::StreamTuple> tuples;
    std::tuple<std::uint32_t, double, double, double> cached{0, -1, -1, -1};
    for (const Point& p : points) {
      datagen::StreamGeneratorSpec spec;
      spec.n = n;
      spec.keys = p.keys;
      spec.zipf = p.zipf;
      spec.rate = p.rate > 0 ? p.rate : static_cast<double>(rate);
      spec.delay = p.delay;
      if (std::tuple(p.keys, p.zipf, p.delay, spec.rate) != cached) {
        tuples = datagen::generate_stream(spec);
        cached = {p.keys, p.zipf, p.delay, spec.rate};
      }
      std::vector<Measure> runs;
      for (int r = 0; r < repeats; ++r)
        runs.push_back(run_once(p, tuples, spec.bound(), device, threads, gpu_batch));
      std::sort(runs.begin(), runs.end(),
                [](const Measure& a, const Measure& b) { return a.seconds < b.seconds; });
      const Measure& m = runs[runs.size() / 2];
      const double mtps = static_cast<double>(n) / m.seconds / 1e6;
      const double gbps = static_cast<double>(n) * sizeof(datagen::StreamTuple) / m.seconds / 1e9;
      const double op_mtps = static_cast<double>(n) / std::max(m.seconds - m.project_seconds, 1e-9) / 1e6;
      const int thr = p.threads > 0 ? p.threads : cores;
      std::printf(
          "%-10s %-14s %12s %8s %8s %5lld %8zu %7u %6.2g %9s %-5s %4d %10.1f %7.2f %9.1f %6.1f %10llu\n",
          p.experiment.c_str(), p.series.c_str(), format_number(p.x).c_str(), duration(p.length).c_str(),
          duration(p.slide).c_str(), static_cast<long long>(p.windows_per_tree), p.batch, p.keys, p.zipf,
          duration(static_cast<std::int64_t>(p.delay)).c_str(),
          std::string(window::to_string(p.aggregate)).c_str(), thr, mtps, gbps, op_mtps,
          100 * m.project_seconds / m.seconds, static_cast<unsigned long long>(m.windows));
      std::fflush(stdout);
      char row[512];
      std::snprintf(
          row, sizeof row,
          "%s,%s,%s,%s,%lld,%lld,%lld,%zu,%u,%g,%g,%s,%d,%zu,%g,%d,%.6f,%.3f,%.3f,%.6f,%.3f,%llu,%llu\n",
          to_string(device).c_str(), p.experiment.c_str(), p.series.c_str(), format_number(p.x).c_str(),
          static_cast<long long>(p.length), static_cast<long long>(p.slide),
          static_cast<long long>(p.windows_per_tree), p.batch, p.keys, p.zipf, p.delay,
          std::string(window::to_string(p.aggregate)).c_str(), thr, n, spec.rate, repeats, m.seconds, mtps,
          gbps, m.project_seconds, op_mtps, static_cast<unsigned long long>(m.windows),
          static_cast<unsigned long long>(m.late));
      csv += row;
    }
    AtomicFile file(csv_path);
    file.stream() << csv;
    file.commit();
    std::fprintf(stderr, "stream_throughput: %zu points -> %s\n", points.size(), csv_path.c_str());
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "stream_throughput: error: %s\n", e.what());
    return exit_code(e.kind());
  }
}
