#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include "api/skycube.hpp"
#include "apps/arguments.hpp"
#include "apps/commands.hpp"
#include "apps/progress.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "datagen/binary.hpp"
#include "datagen/skyline_generator.hpp"
#include "templates/skycube/skycube_text.hpp"

namespace sextant::cli {

namespace {

Dataset load_input(const Arguments& args, PhaseTimes& phases) {
  const bool from_file = args.has("input");
  const bool generated = args.has("generate");
  if (from_file == generated)
    throw Error::argument("--input/--generate", from_file ? "both" : "neither", "exactly one of them",
                          "name the input");
  Stopwatch sw;
  Dataset data = from_file ? datagen::read_dataset(*args.get("input"))
                           : datagen::generate(datagen::parse_generate_spec("--generate", *args.get("generate")));
  if (const auto prefer = args.get("prefer")) {
    // Files and generators give all-min datasets; re-apply with the requested preferences.
    auto prefs = parse_preferences("--prefer", *prefer, data.dims());
    data = Dataset(data.size(), data.dims(), data.values(), std::move(prefs), data.origin());
  }
  phases.add(from_file ? "load" : "generate", sw.seconds());
  return data;
}

void write_output(const std::string& output, const std::string& format, const skycube::HashCube& cube) {
  if (format == "binary") {
    if (output == "-") throw Error::argument("--output", output, "a file name", "binary output needs a file");
    AtomicFile file(output, true);
    cube.save(file.stream());
    file.commit();
  } else if (output == "-") {
    skycube::write_skycube_text(std::cout, cube);
    std::cout.flush();
    if (!std::cout) throw Error::io("<stdout>", "write failed");
  } else {
    AtomicFile file(output);
    skycube::write_skycube_text(file.stream(), cube);
    file.commit();
  }
}

}  // namespace

int skycube_command(int argc, char** argv) {
  Arguments args("skycube",
                 {
                     {"input", "F", "dataset: CSV (optional header, trailing comma ok) or Sextant binary"},
                     {"generate", "DIST:N:D[:SEED]", "generate the dataset instead, e.g. anti:100000:8:1"},
                     {"prefer", "min,max,...", "per-column preference (default: smaller is better everywhere)"},
                     {"template", "T", "reference|stsc|sdsc|mdmc|auto (default auto)"},
                     {"devices", "LIST", "all|cpu|gpu0,gpu1|numa0,... (default all)"},
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
  const auto devices = parse_devices("--devices", args.get_or("devices", "all"));
  options.threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));

  PhaseTimes phases;
  const Dataset data = load_input(args, phases);
  options.max_level = static_cast<int>(args.get_int("max-level", data.dims(), 1, data.dims()));

  skycube::SkycubeResult result;
  {
    Progress progress("computing the skycube of " + std::to_string(data.size()) + " x " + std::to_string(data.dims()));
    result = skycube::compute_skycube(data, options, devices);
  }
  if (options.kind == skycube::TemplateKind::automatic)
    std::fprintf(stderr, "sextant skycube: --template auto chose %s\n", result.template_name.c_str());
  for (const auto& p : result.phases.phases()) phases.add(p.name, p.seconds);

  Stopwatch sw;
  write_output(output, format, result.cube);
  phases.add("write", sw.seconds());

  std::string times;
  for (const auto& p : phases.phases()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.3f s", times.empty() ? "" : ", ", p.name.c_str(), p.seconds);
    times += buf;
  }
  std::fprintf(stderr,
               "sextant skycube: n=%zu d=%d max_level=%d template=%s extended_skyline=%zu ids_stored=%zu "
               "hashcube_bytes=%zu | %s | total %.3f s -> %s\n",
               data.size(), data.dims(), options.max_level, result.template_name.c_str(),
               result.extended_skyline_size, result.cube.stored_ids(), result.cube.bytes(), times.c_str(),
               phases.total(), output.c_str());
  return 0;
}

}  // namespace sextant::cli
