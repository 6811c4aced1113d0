#include "apps/window_stream.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "api/machine.hpp"
#include "api/stream_window.hpp"
#include "apps/output.hpp"
#include "apps/stream_options.hpp"
#include "apps/window_parameters.hpp"
#include "apps/window_stream_output.hpp"
#include "core/background_task.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/number_format.hpp"
#include "core/stopwatch.hpp"
#include "datagen/stream_csv.hpp"
#include "datagen/stream_generator.hpp"
#include "templates/window/count_window_policy.hpp"

namespace sextant::cli {

namespace {

using window::StreamWindowOptions;
using window::ValueType;
using window::WindowSpec;
using window::WindowType;

// Bytes of results kept in memory in key order: an eighth of the memory this process may use, at
// least 1 GiB (a run that fits is sorted once, with nothing spilled).
long long default_results_budget() {
  return static_cast<long long>(std::max<std::uint64_t>(std::uint64_t{1} << 30, usable_memory_bytes() / 8));
}

// --batch auto (the default) or a number of tuples per push.
std::size_t push_batch(const Arguments& args, const window::StreamDeviceOptions& device) {
  const std::string value = args.get_or("batch", "auto");
  if (value == "auto")
    return device.device.kind == DeviceKind::gpu
               ? window::policy::stream_gpu_push_tuples
               : window::policy::stream_cpu_push_tuples_per_thread *
                     static_cast<std::size_t>(device.threads > 0 ? device.threads : omp_get_max_threads());
  long long n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || end != value.data() + value.size() || n < 1 || n > (1LL << 32))
    throw Error::argument("--batch", value, "auto or an integer in 1 .. 4294967296 (tuples per push)",
                          "not a batch size");
  return static_cast<std::size_t>(n);
}

StreamWindowOptions window_options(const Arguments& args) {
  const WindowType type = window::parse_window_type("--type", args.require("type"));
  const auto lengths = parse_window_parameters("--length", args.require("length"));
  const auto slides = parse_window_parameters("--slide", args.require("slide"));
  if (lengths.size() != slides.size() && lengths.size() != 1 && slides.size() != 1)
    throw Error::argument(
        "--length/--slide", std::to_string(lengths.size()) + "/" + std::to_string(slides.size()),
        "as many slides as lengths, or one of them given once", "window specs do not pair up");
  StreamWindowOptions options;
  const std::size_t specs = std::max(lengths.size(), slides.size());
  for (std::size_t i = 0; i < specs; ++i)
    options.specs.push_back({type, lengths[lengths.size() == 1 ? 0 : i], slides[slides.size() == 1 ? 0 : i]});
  options.lateness = args.get_int("lateness", 0, 0, WindowSpec::max_parameter);
  if (type == WindowType::count && options.lateness != 0)
    throw Error::argument("--lateness", std::to_string(options.lateness), "0 (or absent) with --type count",
                          "count windows ignore timestamps, so they have no lateness");
  options.windows_per_tree = args.get_int("windows-per-tree", options.windows_per_tree, 1, 1 << 20);
  options.window_stage = window::parse_window_stage("--window-stage", args.get_or("window-stage", "auto"));
  return options;
}

// The next n entries of type T of `memory` from `offset`, which moves on to a 64-byte boundary.
template <class T>
std::span<T> carve(const window::HostBuffer& memory, std::size_t& offset, std::size_t n) {
  const std::span<T> s(reinterpret_cast<T*>(static_cast<std::byte*>(memory.data()) + offset), n);
  offset += (n * sizeof(T) + 63) / 64 * 64;
  return s;
}

// Progress on stderr, at most once a second, once the run has lasted a second.
class Progress {
 public:
  explicit Progress(std::uint64_t total) : total_(total) {}
  void update(std::uint64_t tuples, std::uint64_t windows) {
    const double s = clock_.seconds();
    if (s < next_) return;
    next_ = s + 1;
    std::fprintf(stderr, "sextant window: %llu of %llu tuples (%.0f%%), %llu windows, %.1f s\n",
                 static_cast<unsigned long long>(tuples), static_cast<unsigned long long>(total_),
                 total_ > 0 ? 100.0 * static_cast<double>(tuples) / static_cast<double>(total_) : 100.0,
                 static_cast<unsigned long long>(windows), s);
  }

 private:
  Stopwatch clock_;
  std::uint64_t total_;
  double next_ = 1;
};

// The tuples, in arrival order, and how to feed them to the operator batch by batch.
class Source {
 public:
  virtual ~Source() = default;
  virtual ValueType value_type() const = 0;
  virtual const std::string& origin() const = 0;
  // Pushes every tuple in batches of `batch`, handing what fired to `sink` after each push,
  // then finishes; adds the time of generation and projection to the phase "generate", the
  // operator's to "aggregate" (the sink adds its writing to "write").
  virtual void run(window::StreamWindow& op, std::size_t batch, StreamOutput& sink, PhaseTimes& phases) = 0;
};

class CsvSource final : public Source {
 public:
  CsvSource(const std::string& path, std::optional<ValueType> type) : origin_(path) {
    datagen::StreamCsvOptions options;
    if (type)
      options.value_type = static_cast<datagen::ColumnType>(static_cast<int>(*type) + 1);  // same order
    csv_ = datagen::read_stream_csv(path, options);
  }
  // datagen's ColumnData and window's ValueType list the four types in the same order.
  ValueType value_type() const override { return static_cast<ValueType>(csv_.values.index()); }
  const std::string& origin() const override { return origin_; }
  void run(window::StreamWindow& op, std::size_t batch, StreamOutput& sink, PhaseTimes& phases) override {
    // Before any push, so that the message names the input's row rather than a batch's tuple.
    if (op.geometry().type == WindowType::time) {
      const std::int64_t limit = op.geometry().max_timestamp;
      const std::size_t n = csv_.timestamps.size();
      const std::size_t i = window::first_timestamp_above(csv_.timestamps.data(), n, limit);
      if (i < n)
        window::throw_timestamp_above(origin_ + ": data row " + std::to_string(i + 1) + " (key " +
                                          std::to_string(csv_.keys.empty() ? 0u : csv_.keys[i]) + ")",
                                      csv_.timestamps[i], limit);
    }
    Stopwatch sw;
    std::visit(
        [&](const auto& values) {
          const std::span keys(csv_.keys);
          const std::span ts(csv_.timestamps);
          const std::span wm(csv_.watermarks);
          const std::span vals(values);
          Progress progress(vals.size());
          for (std::size_t first = 0; first < vals.size(); first += batch) {
            const std::size_t n = std::min(batch, vals.size() - first);
            sw.restart();
            op.push(window::StreamBatch<typename std::decay_t<decltype(values)>::value_type>{
                keys.subspan(first, n), ts.subspan(first, n), vals.subspan(first, n), wm.subspan(first, n)});
            phases.add("aggregate", sw.seconds());
            sink.take(op);
            progress.update(first + n, sink.rows());
          }
        },
        csv_.values);
    sw.restart();
    op.finish();
    phases.add("aggregate", sw.seconds());
    sink.take(op);
  }

 private:
  std::string origin_;
  datagen::StreamCsv csv_;
};

class GeneratedSource final : public Source {
 public:
  GeneratedSource(const datagen::StreamGeneratorSpec& spec, ValueType type, int threads)
      : generator_(spec), type_(type), threads_(threads), origin_("generated " + spec.describe()) {}
  ValueType value_type() const override { return type_; }
  const std::string& origin() const override { return origin_; }
  void run(window::StreamWindow& op, std::size_t batch, StreamOutput& sink, PhaseTimes& phases) override {
    window::visit_value_type(type_, [&](auto v) { run_as<decltype(v)>(op, batch, sink, phases); });
  }

 private:
  template <window::WindowValue V>
  void run_as(window::StreamWindow& op, std::size_t batch, StreamOutput& sink, PhaseTimes& phases) {
    const std::uint64_t total = generator_.spec().n;
    batch = static_cast<std::size_t>(std::min<std::uint64_t>(batch, std::max<std::uint64_t>(total, 1)));
    const std::uint64_t batches = (total + batch - 1) / batch;
    const datagen::StreamField field =
        std::is_integral_v<V> ? datagen::StreamField::int_value : datagen::StreamField::float_value;
    // A GPU leaves the host's cores idle while it aggregates: they generate the next batch
    // meanwhile, into a second buffer. A CPU operator needs the cores itself.
    const int slots = op.device().kind == DeviceKind::gpu && batches > 1 ? 2 : 1;
    // Batch columns in memory suited to the device (pinned for a GPU).
    std::vector<window::HostBuffer> memory;
    std::vector<datagen::StreamColumnSpans<V>> columns(static_cast<std::size_t>(slots));
    for (auto& c : columns) {
      memory.push_back(
          op.allocate_host(batch * (sizeof(window::StreamKey) + 2 * sizeof(std::int64_t) + sizeof(V)) + 256));
      std::size_t offset = 0;
      c.timestamps = carve<std::int64_t>(memory.back(), offset, batch);
      c.watermarks = carve<std::int64_t>(memory.back(), offset, batch);
      c.values = carve<V>(memory.back(), offset, batch);
      c.keys = carve<window::StreamKey>(memory.back(), offset, batch);
    }
    // Ahead of a GPU, one core is left to the thread that drives it (it spins while it waits).
    const int threads = slots == 2 && threads_ == 0 ? std::max(1, omp_get_max_threads() - 1) : threads_;
    datagen::BoundedDelayWatermarks watermarks(generator_.spec().bound());
    std::vector<window::StreamBatch<V>> filled(columns.size());
    const auto fill = [&](std::uint64_t k) {
      const std::size_t slot = k % columns.size();
      const std::uint64_t first = k * batch;
      filled[slot] = generator_.generate_columns<V>(
          first, static_cast<std::size_t>(std::min<std::uint64_t>(batch, total - first)), field, watermarks,
          columns[slot], threads);
    };
    BackgroundTask ahead;
    Stopwatch sw;
    Progress progress(total);
    if (batches > 0) fill(0);
    phases.add("generate", sw.seconds());
    for (std::uint64_t k = 0; k < batches; ++k) {
      const bool next = k + 1 < batches;
      if (next && slots == 2) ahead.start([&fill, k] { fill(k + 1); });
      sw.restart();
      op.push(filled[k % columns.size()]);
      phases.add("aggregate", sw.seconds());
      sink.take(op);
      progress.update(std::min(total, (k + 1) * batch), sink.rows());
      // What the run waits for the next batch: all of its generation on one buffer, what the
      // push did not hide on two.
      sw.restart();
      if (next && slots == 2) ahead.wait();
      if (next && slots == 1) fill(k + 1);
      phases.add("generate", sw.seconds());
    }
    sw.restart();
    op.finish();
    phases.add("aggregate", sw.seconds());
    sink.take(op);
  }

  datagen::StreamGenerator generator_;
  ValueType type_;
  int threads_;  // generation and projection (0: every core)
  std::string origin_;
};

std::unique_ptr<Source> open_source(const Arguments& args, int threads) {
  const bool from_file = args.has("input");
  const bool generated = args.has("generate");
  if (from_file == generated)
    throw Error::argument("--input/--generate", from_file ? "both" : "neither", "exactly one of them",
                          "name the input");
  std::optional<ValueType> type;
  if (const auto t = args.get("value-type")) type = window::parse_value_type("--value-type", *t);
  if (from_file) {
    reject_stream_generator_options(args, "with --input");
    return std::make_unique<CsvSource>(*args.get("input"), type);
  }
  const auto n = static_cast<std::uint64_t>(args.get_int("generate", 0, 0, 1LL << 40));
  return std::make_unique<GeneratedSource>(parse_stream_generator(args, n), type.value_or(ValueType::int32),
                                           threads);
}

std::string describe_specs(const StreamWindowOptions& options) {
  std::string out;
  for (const WindowSpec& s : options.specs) {
    if (!out.empty()) out += ',';
    append_number(out, s.length);
    out += '/';
    append_number(out, s.slide);
  }
  return out;
}

}  // namespace

std::vector<Arguments::Option> window_stream_options() {
  std::vector<Arguments::Option> options = {
      {"lateness", "L", "stream mode: allowed lateness in time units (default 0; time windows only)"},
      {"windows-per-tree", "NW", "stream mode: windows one B-PAT covers, n_w (default 64)"},
      {"window-stage", "auto|bpat|scan|dense",
       "stream mode: the CPU window stage (default auto: dense rows over every key for many keys that "
       "fill most panes, else per key the scan for fine slides and the B-PAT for coarse ones)"},
      {"batch", "auto|B",
       "stream mode: tuples per pushed batch (default auto: 131072 = 4 MiB of 32-byte tuples per CPU thread, "
       "4194304 on a GPU)"},
      {"order", "key|fire",
       "stream mode: rows sorted by (spec,) key, start (default), or written as the windows fire"},
      {"results-budget", "BYTES",
       "stream mode, --order key: results kept in memory before sorted runs spill to $TMPDIR (default an "
       "eighth of the memory, at least 1 GiB)"},
  };
  for (auto& o : stream_generator_options()) options.push_back(std::move(o));
  return options;
}

std::vector<const char*> window_stream_only_options() {
  return {"lateness",     "windows-per-tree",
          "window-stage", "batch",
          "order",        "results-budget",
          "keys",         "zipf",
          "rate",         "delay",
          "delay-dist",   "watermark-bound"};
}

int window_stream(const Arguments& args) {
  if (const auto a = args.get("algorithm"))
    throw Error::argument("--algorithm", *a, "only with --inplace",
                          "the stream mode has one algorithm per device");
  const StreamWindowOptions options = window_options(args);
  window::make_geometry(options);  // every parameter checked before the input is read
  const window::StreamAggregateKind kind = window::parse_stream_aggregate("--agg", args.require("agg"));
  window::StreamDeviceOptions device;
  device.device = parse_cpu_or_gpu(
      "--device", args.get_or("device", "cpu"), [] { return api::cpu_machine().numa_nodes.size(); },
      "stream windows");
  device.threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));
  const std::size_t batch = push_batch(args, device);
  const ResultOrder order = parse_result_order("--order", args.get_or("order", "key"));
  const auto budget =
      static_cast<std::size_t>(args.get_int("results-budget", default_results_budget(), 1024, 1LL << 50));
  const std::string output = args.require("output");

  PhaseTimes phases;
  enter_phase(args.has("input") ? "loading the input" : "preparing the stream");
  Stopwatch sw;
  const std::unique_ptr<Source> source = open_source(args, device.threads);
  if (args.has("input")) phases.add("load", sw.seconds());

  window::StreamWindow op(source->value_type(), kind, options, device);
  std::size_t runs = 0;
  // Windows go to the output as they fire (--order fire) or through sorted runs; the output file
  // appears only once everything is written (docs/output-files.md).
  write_output(output, [&](std::ostream& out) {
    enter_phase("aggregating the windows");
    cpu::OmpTeam text_team = output_team(device.threads);
    StreamOutput sink(out, op.result_type(), options.specs.size() > 1, order, budget, phases, text_team);
    source->run(op, batch, sink, phases);
    enter_phase("writing the output");
    sink.finish();
    runs = sink.spilled_runs();
  });
  const window::StreamCounters counters = op.counters();

  double aggregate_s = 0;
  for (const auto& p : phases.phases())
    if (p.name == "aggregate") aggregate_s = p.seconds;
  // Tuples over the whole run's wall clock (input, aggregation, output), and the operator's share.
  const auto rate = [&](double seconds) {
    return seconds > 0 ? static_cast<double>(counters.tuples_in) / seconds / 1e6 : 0.0;
  };
  const bool time_windows = options.specs[0].type == WindowType::time;
  const std::string ignored =
      time_windows ? " watermarks_ignored=" + std::to_string(counters.watermarks_ignored) : std::string();
  const std::string spilled = runs > 0 ? " spilled_runs=" + std::to_string(runs) : std::string();
  std::fprintf(
      stderr,
      "sextant window: %s | %s windows W/S=%s lateness=%lld n_w=%lld agg=%s %s->%s | %s, batch %zu | "
      "tuples_in=%llu late_dropped=%llu%s windows_emitted=%llu%s | throughput %.2f Mtuples/s (operator "
      "%.2f) | %s | total %.3f s -> %s\n",
      source->origin().c_str(), std::string(window::to_string(options.specs[0].type)).c_str(),
      describe_specs(options).c_str(), static_cast<long long>(options.lateness),
      static_cast<long long>(options.windows_per_tree), std::string(window::to_string(kind)).c_str(),
      std::string(window::to_string(op.value_type())).c_str(),
      std::string(window::to_string(op.result_type())).c_str(), op.describe().c_str(), batch,
      static_cast<unsigned long long>(counters.tuples_in),
      static_cast<unsigned long long>(counters.late_dropped), ignored.c_str(),
      static_cast<unsigned long long>(counters.windows_emitted), spilled.c_str(), rate(phases.total()),
      rate(aggregate_s), format_phases(phases).c_str(), phases.total(), output.c_str());
  return 0;
}

}  // namespace sextant::cli
