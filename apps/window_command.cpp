// sextant window: sliding-window aggregation. Two families behind one command:
//   --type count --inplace   count-based windows over one column held in memory, in order (paper 001);
//   otherwise                time or count windows over an out-of-order keyed stream (paper 000,
//                            apps/window_stream.cpp).
#include <cstdio>
#include <filesystem>
#include <future>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <variant>

#include "api/machine.hpp"
#include "api/window_count.hpp"
#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "apps/window_stream.hpp"
#include "cli/arguments.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/ordered_text.hpp"
#include "core/stopwatch.hpp"
#include "datagen/column_file.hpp"
#include "datagen/input_file.hpp"
#include "templates/window/count_window_policy.hpp"

namespace sextant::cli {

namespace {

datagen::ColumnType column_type(window::ValueType t) {
  switch (t) {
    case window::ValueType::int32:
      return datagen::ColumnType::int32;
    case window::ValueType::int64:
      return datagen::ColumnType::int64;
    case window::ValueType::float32:
      return datagen::ColumnType::float32;
    case window::ValueType::float64:
      break;
  }
  return datagen::ColumnType::float64;
}

struct Input {
  datagen::ColumnData values;
  std::string origin;
};

window::ColumnView view_of(const datagen::ColumnData& values) {
  return std::visit([](const auto& v) { return window::ColumnView(std::span(v.data(), v.size())); }, values);
}

// Whether the input may hold policy::cpu_inline_values values or more, known before it is loaded:
// --generate names its size; a file holds at most one value per two bytes (a digit and a
// separator; a column file more); a pipe is not known.
bool may_need_cpu_workers(const Arguments& args) {
  std::uint64_t most = 0;
  if (args.has("generate")) {
    most = static_cast<std::uint64_t>(args.get_int("generate", 0, 0, 1LL << 40));
  } else if (const auto path = args.get("input")) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(*path, error)) return true;
    const std::uintmax_t bytes = std::filesystem::file_size(*path, error);
    if (error) return true;
    most = bytes / 2;
  }
  return most >= window::policy::cpu_inline_values;
}

Input load_input(const Arguments& args, PhaseTimes& phases) {
  const bool from_file = args.has("input");
  const bool generated = args.has("generate");
  if (from_file == generated)
    throw Error::argument("--input/--generate", from_file ? "both" : "neither", "exactly one of them",
                          "name the input");
  const auto requested = args.get("value-type");
  enter_phase(generated ? "generating the input" : "loading the input");
  Stopwatch sw;
  Input in;
  if (generated) {
    const auto n = static_cast<std::size_t>(args.get_int("generate", 0, 0, 1LL << 40));
    const auto seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1LL << 62));
    const window::ValueType type = window::parse_value_type("--value-type", requested.value_or("int32"));
    in.values = datagen::generate_column(column_type(type), n, seed);
    in.origin = "generated " + std::string(window::to_string(type)) + " n=" + std::to_string(n) +
                " seed=" + std::to_string(seed);
    phases.add("generate", sw.seconds());
    return in;
  }
  if (args.has("seed"))
    throw Error::argument("--seed", *args.get("seed"), "only with --generate", "not used with --input");
  const std::string path = *args.get("input");
  datagen::InputFile file(path);  // opened once: a FIFO cannot be probed and then opened again
  const std::string_view magic(datagen::column_magic, sizeof datagen::column_magic);
  if (file.peek(magic.size()) == magic) {
    datagen::ColumnData data = datagen::read_column_file(file);
    if (requested) {
      const window::ValueType want = window::parse_value_type("--value-type", *requested);
      if (column_type(want) != datagen::type_of(data))
        throw Error::argument(
            "--value-type", *requested,
            std::string(datagen::to_string(datagen::type_of(data))) + " (the type stored in " + path + ")",
            "does not match the column file");
    }
    in.values = std::move(data);
  } else {
    const window::ValueType type = window::parse_value_type("--value-type", requested.value_or("double"));
    datagen::StreamValues stream = datagen::parse_text(file, [&](std::string_view text) {
      return datagen::parse_stream_csv_values(text, path, column_type(type));
    });
    if (stream.several_keys)
      std::fprintf(
          stderr,
          "sextant window: warning: %s holds several keys; --inplace count windows take the value column "
          "in row order as one stream (results carry key 0)\n",
          path.c_str());
    in.values = std::move(stream.values);
  }
  in.origin = path;
  phases.add("load", sw.seconds());
  return in;
}

// key,start,end,value with key 0 and start/end as positions (end exclusive); the positional
// functions add the value's position: key,start,end,value,position.
void write_results(std::ostream& out, const window::CountWindowResult& result,
                   const window::CountWindowSpec& spec, TeamRef team) {
  const bool positions = !result.positions.empty();
  out << (positions ? "key,start,end,value,position\n" : "key,start,end,value\n");
  std::visit(
      [&](const auto& values) {
        const auto format = [&](std::size_t begin, std::size_t end, std::string& buf) {
          for (std::size_t k = begin; k < end; ++k) {
            buf += "0,";
            append_number(buf, static_cast<std::uint64_t>(k) * spec.slide);
            buf += ',';
            append_number(buf, static_cast<std::uint64_t>(k) * spec.slide + spec.length);
            buf += ',';
            append_number(buf, values[k]);
            if (positions) {
              buf += ',';
              append_number(buf, result.positions[k]);
            }
            buf += '\n';
          }
        };
        write_in_order(out, values.size(), text_block_rows, team, format, "writing the window results");
      },
      result.values);
}

}  // namespace

int window_command(int argc, char** argv) {
  std::vector<Arguments::Option> declared = {
      {"type", "time|count", "window type"},
      {"inplace", "",
       "count windows over one column in memory, in row order (paper 001); without it: windows over "
       "an out-of-order keyed stream (paper 000)"},
      {"input", "F",
       "stream CSV key,ts,value,wm; with --inplace also a binary column file (\"SXTC\"), values in row "
       "order"},
      {"generate", "N", "generate N tuples (N values with --inplace) instead; see --seed and below"},
      {"value-type", "int32|int64|float|double",
       "type of the values (default: int32 generated; from a CSV int64 if all are integers, else double; "
       "--inplace CSV: double)"},
      {"length", "W[,W...]", "window length(s), time units or tuples (>= 1); several: one spec each"},
      {"slide", "S[,S...]", "window slide(s) (>= 1); pairs with --length, or one for all"},
      {"agg", "sum|count|min|max|avg|var|argmin|argmax|first|last",
       "aggregate function (--inplace: all but avg|var); argmin|argmax|first|last add the value's "
       "timestamp (--inplace: position) as a last CSV column"},
      {"device", "cpu|gpuN", "where to aggregate (default cpu)"},
      {"algorithm", "A",
       "--inplace GPU algorithm: auto|gbl|sh|coop|direct-prefix|reduced-prefix (default auto)"},
      {"threads", "T", "CPU threads (default: every core)"},
      {"output", "F", "results CSV [spec,]key,start,end,value sorted by [spec,] key, start ('-' = stdout)"},
  };
  for (auto& o : window_stream_options()) declared.push_back(std::move(o));
  declared.push_back({"help", "", "this text"});
  Arguments args("window", std::move(declared));
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  if (!args.has("inplace")) return window_stream(args);
  const std::string type = args.require("type");
  if (type == "time")
    throw Error::argument("--type", type, "count with --inplace",
                          "--inplace aggregates a column by position; for time windows drop --inplace");
  if (type != "count") throw Error::argument("--type", type, "time or count", "unknown window type");
  for (const char* name : window_stream_only_options())
    if (const auto v = args.get(name))
      throw Error::argument(std::string("--") + name, *v, "only without --inplace", "not used by --inplace");

  window::CountWindowSpec spec;
  spec.length = static_cast<std::uint64_t>(
      args.get_int("length", 0, 1, static_cast<long long>(window::CountWindowSpec::max_parameter)));
  if (!args.has("length")) args.require("length");
  spec.slide = static_cast<std::uint64_t>(
      args.get_int("slide", 0, 1, static_cast<long long>(window::CountWindowSpec::max_parameter)));
  if (!args.has("slide")) args.require("slide");
  const window::AggregateKind kind = window::parse_aggregate("--agg", args.require("agg"));
  const DeviceId device = parse_cpu_or_gpu(
      "--device", args.get_or("device", "cpu"), [] { return api::cpu_machine().numa_nodes.size(); },
      "count windows");
  window::CountWindowOptions options;
  options.algorithm = window::parse_count_algorithm("--algorithm", args.get_or("algorithm", "auto"));
  if (device.kind == DeviceKind::cpu && options.algorithm != window::CountAlgorithm::automatic)
    throw Error::argument("--algorithm", args.get_or("algorithm", "auto"), "auto with --device cpu",
                          "the named algorithms are GPU kernels; add --device gpu0");
  options.threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));
  const std::string output = args.require("output");
  window::CountWindows windows(device, options);  // a missing GPU: exit 4 before the input is read

  // The CPU's workers start (hwloc's discovery and pinned threads: milliseconds) while the input
  // loads, not in the aggregate phase; only for a column that may need them (a shorter one runs on
  // this thread, and starting them would only slow its loading down).
  std::future<void> started;
  if (device.kind == DeviceKind::cpu && may_need_cpu_workers(args))
    started = std::async(std::launch::async, [&windows] { windows.start(); });
  PhaseTimes phases;
  const Input in = load_input(args, phases);
  const std::size_t n = datagen::size_of(in.values);
  if (started.valid()) started.get();

  enter_phase("aggregating the windows");
  Stopwatch sw;
  const window::CountWindowResult result = windows.aggregate(view_of(in.values), spec, kind);
  phases.add("aggregate", sw.seconds());
  if (device.kind == DeviceKind::gpu && options.algorithm == window::CountAlgorithm::automatic)
    std::fprintf(stderr, "sextant window: --algorithm auto chose %s\n", result.algorithm.c_str());

  sw.restart();
  cpu::OmpTeam text_team = output_team(options.threads);
  write_output(output, [&](std::ostream& out) { write_results(out, result, spec, text_team); });
  phases.add("write", sw.seconds());
  const std::string times = format_phases(phases);
  std::fprintf(
      stderr,
      "sextant window: %s, n=%zu W=%llu S=%llu windows=%zu agg=%s device=%s algorithm=%s | %s | total %.3f s "
      "-> %s\n",
      in.origin.c_str(), n, static_cast<unsigned long long>(spec.length),
      static_cast<unsigned long long>(spec.slide), window::size_of(result.values),
      std::string(window::to_string(kind)).c_str(), to_string(device).c_str(), result.algorithm.c_str(),
      times.c_str(), phases.total(), output.c_str());
  return 0;
}

}  // namespace sextant::cli
