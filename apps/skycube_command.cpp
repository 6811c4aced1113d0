#include <cstdio>
#include <ostream>
#include <string>

#include "api/skycube.hpp"
#include "apps/commands.hpp"
#include "apps/dataset_input.hpp"
#include "apps/output.hpp"
#include "apps/progress.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "cpu/omp_team.hpp"
#include "datagen/binary.hpp"
#include "datagen/skyline_generator.hpp"
#include "scheduler/counters.hpp"
#include "scheduler/statistics.hpp"
#include "templates/skycube/skycube_text.hpp"

namespace sextant::cli {

namespace {

void write_cube(const std::string& output, const std::string& format, const skycube::HashCube& cube,
                int threads) {
  const bool binary = format == "binary";
  if (binary && output == "-")
    throw Error::argument("--output", output, "a file name", "binary output needs a file");
  // The text is formatted on every core the run may use.
  cpu::OmpTeam text_team = output_team(threads);
  write_output(
      output,
      [&](std::ostream& out) {
        if (binary)
          cube.save(out);
        else
          skycube::write_skycube_text(out, cube, text_team);
      },
      binary);
}

// --devices and --counters: which devices run the skycube and what the scheduler measures on them.
// Without --devices the run uses the CPU's cores.
skycube::DeviceOptions device_options(const Arguments& args) {
  skycube::DeviceOptions on;
  if (const auto devices = args.get("devices")) on.devices = parse_devices("--devices", *devices);
  if (const auto counters = args.get("counters")) {
    on.counters = scheduler::parse_counter_events("--counters", *counters);
    if (on.counters.empty())
      throw Error::argument("--counters", "", "PAPI event names, e.g. PAPI_TOT_INS,PAPI_L2_TCM",
                            "no event named");
  }
  return on;
}

void print_device_report(const skycube::SkycubeResult& result, bool wanted) {
  if (!result.statistics) {
    if (wanted)
      std::fprintf(stderr,
                   "sextant skycube: no per-device report: the %s template does not run on the scheduler\n",
                   result.template_name.c_str());
    return;
  }
  if (wanted) {
    std::fprintf(stderr, "sextant skycube: per-device report (%s)\n%s", result.template_name.c_str(),
                 scheduler::report(*result.statistics).c_str());
  } else if (const std::size_t failures = result.statistics->failures.size(); failures > 0) {
    std::fprintf(stderr,
                 "sextant skycube: %zu device failure%s; the work moved to other devices and the result is "
                 "complete (--report lists them)\n",
                 failures, failures == 1 ? "" : "s");
  }
}

}  // namespace

int skycube_command(int argc, char** argv) {
  Arguments args(
      "skycube",
      {
          {"input", "F", "dataset: CSV (optional header, trailing comma ok) or Sextant binary"},
          {"generate", "DIST:N:D[:SEED]", "generate the dataset instead, e.g. anti:100000:8:1"},
          {"prefer", "min,max,...", "per-column preference (default: smaller is better everywhere)"},
          {"template", "T", "reference|stsc|sdsc|mdmc|auto (default auto)"},
          {"devices", "LIST",
           "all|cpu|gpu0,gpu1|numa0,...: run on these devices through the scheduler (default: "
           "cpu, every core)"},
          {"counters", "EVENTS", "PAPI events on every CPU worker, e.g. PAPI_TOT_INS,PAPI_L2_TCM"},
          {"report", "",
           "print the per-device table (workers, tasks, items, busy time, share, "
           "counters) on stderr"},
          {"threads", "T", "CPU threads (default: every core)"},
          {"max-level", "L", "partial skycube: subspaces of at most L columns (default d)"},
          {"output", "F", "where to write the skycube ('-' = stdout, text only)"},
          {"format", "text|binary", "text: one line per subspace; binary: the HashCube (default text)"},
          {"help", "", "this text"},
      });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const std::string output = args.require("output");
  const std::string format = args.get_or("format", "text");
  if (format != "text" && format != "binary")
    throw Error::argument("--format", format, "text or binary", "unknown format");
  skycube::SkycubeOptions options;
  options.kind = skycube::parse_template("--template", args.get_or("template", "auto"));
  const skycube::DeviceOptions devices = device_options(args);
  options.threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));

  PhaseTimes phases;
  const Dataset data = load_dataset(args, phases);
  options.max_level = static_cast<int>(args.get_int("max-level", data.dims(), 1, data.dims()));

  skycube::SkycubeResult result;
  {
    enter_phase("computing the skycube");
    Progress progress("computing the skycube of " + std::to_string(data.size()) + " x " +
                      std::to_string(data.dims()));
    result = skycube::compute_skycube(data, options, devices);
  }
  if (options.kind == skycube::TemplateKind::automatic)
    std::fprintf(stderr, "sextant skycube: --template auto chose %s\n", result.template_name.c_str());
  print_device_report(result, args.has("report") || !devices.counters.empty());
  for (const auto& p : result.phases.phases()) phases.add(p.name, p.seconds);

  Stopwatch sw;
  write_cube(output, format, result.cube, options.threads);
  phases.add("write", sw.seconds());
  const std::string times = format_phases(phases);
  std::fprintf(stderr,
               "sextant skycube: n=%zu d=%d max_level=%d template=%s extended_skyline=%zu ids_stored=%zu "
               "hashcube_bytes=%zu | %s | total %.3f s -> %s\n",
               data.size(), data.dims(), options.max_level, result.template_name.c_str(),
               result.extended_skyline_size, result.cube.stored_ids(), result.cube.bytes(), times.c_str(),
               phases.total(), output.c_str());
  return 0;
}

}  // namespace sextant::cli
