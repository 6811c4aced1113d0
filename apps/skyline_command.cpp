#include <cstdio>
#include <ostream>
#include <string>

#include "api/skyline.hpp"
#include "apps/commands.hpp"
#include "apps/dataset_input.hpp"
#include "apps/output.hpp"
#include "apps/progress.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "scheduler/counters.hpp"
#include "scheduler/statistics.hpp"

namespace sextant::cli {

int skyline_command(int argc, char** argv) {
  Arguments args(
      "skyline",
      {
          {"input", "F", "dataset: CSV (optional header, trailing comma ok) or Sextant binary"},
          {"generate", "DIST:N:D[:SEED]", "generate the dataset instead, e.g. anti:100000:8:1"},
          {"prefer", "min,max,...", "per-column preference (default: smaller is better everywhere)"},
          {"columns", "0,3,5", "the subspace's columns, 0-based (default: every column)"},
          {"devices", "LIST",
           "all|cpu|gpu0,gpu1|numa0,...: run on these devices through the scheduler (default: cpu)"},
          {"counters", "EVENTS", "PAPI events on every CPU worker, e.g. PAPI_TOT_INS,PAPI_L2_TCM"},
          {"report", "", "print the per-device table on stderr"},
          {"threads", "T", "CPU threads (default: every core)"},
          {"output", "F",
           "where to write the skyline ('-' = stdout): one line '<mask> <count> <id> ...', ids "
           "ascending, as in the skycube's text output"},
          {"help", "", "this text"},
      });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const std::string output = args.require("output");
  SkylineOptions options;
  options.threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));
  if (const auto devices = args.get("devices"))
    options.devices.devices = parse_devices("--devices", *devices);
  if (const auto counters = args.get("counters")) {
    options.devices.counters = scheduler::parse_counter_events("--counters", *counters);
    if (options.devices.counters.empty())
      throw Error::argument("--counters", "", "PAPI event names, e.g. PAPI_TOT_INS,PAPI_L2_TCM",
                            "no event named");
  }

  PhaseTimes phases;
  const Dataset data = load_dataset(args, phases);
  const Mask subspace = args.has("columns")
                            ? parse_column_list("--columns", *args.get("columns"), data.dims())
                            : full_mask(data.dims());

  SkylineResult result;
  {
    enter_phase("computing the skyline");
    Progress progress("computing the skyline of " + std::to_string(data.size()) + " x " +
                      std::to_string(data.dims()));
    result = skyline(data, subspace, options);
  }
  for (const auto& p : result.phases.phases()) phases.add(p.name, p.seconds);
  const bool report = args.has("report") || !options.devices.counters.empty();
  if (report && result.statistics)
    std::fprintf(stderr, "sextant skyline: per-device report\n%s",
                 scheduler::report(*result.statistics).c_str());
  else if (report)
    std::fprintf(stderr, "sextant skyline: no per-device report: %zu points ran on the calling thread\n",
                 data.size());

  Stopwatch sw;
  write_output(output, [&](std::ostream& out) {
    std::string line = std::to_string(subspace);
    line.append(" ").append(std::to_string(result.ids.size()));
    for (const PointId id : result.ids) line.append(" ").append(std::to_string(id));
    line += "\n";
    out << line;
  });
  phases.add("write", sw.seconds());
  std::fprintf(stderr, "sextant skyline: n=%zu d=%d subspace=%u skyline=%zu | %s | total %.3f s -> %s\n",
               data.size(), data.dims(), subspace, result.ids.size(), format_phases(phases).c_str(),
               phases.total(), output.c_str());
  return 0;
}

}  // namespace sextant::cli
