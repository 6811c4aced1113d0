#include <cstdio>
#include <string>

#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "datagen/binary.hpp"
#include "datagen/csv.hpp"
#include "datagen/skyline_generator.hpp"

namespace sextant::cli {

int generate_command(int argc, char** argv) {
  Arguments args("generate", {
                                 {"dist", "indep|corr|anti|ties[:Q]", "distribution (ties: Q levels per column, default 4)"},
                                 {"n", "N", "number of points"},
                                 {"d", "D", "number of columns (1..32)"},
                                 {"seed", "S", "random seed (default 1)"},
                                 {"output", "F.csv|F.bin", "output file; .bin writes the binary format"},
                                 {"help", "", "this text"},
                             });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  datagen::GeneratorSpec spec = datagen::parse_distribution("--dist", args.require("dist"));
  spec.n = static_cast<std::size_t>(args.get_int("n", -1, 0, 4'000'000'000LL));
  if (!args.has("n")) args.require("n");
  spec.d = static_cast<int>(args.get_int("d", 0, 1, max_columns));
  if (!args.has("d")) args.require("d");
  spec.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, (1LL << 62)));
  const std::string output = args.require("output");

  enter_phase("generating the data");
  Stopwatch sw;
  const Dataset data = datagen::generate(spec);
  enter_phase("writing the output");
  if (output.ends_with(".bin"))
    datagen::write_binary(output, data);
  else
    datagen::write_csv(output, data);
  std::fprintf(stderr, "sextant generate: %s n=%zu d=%d seed=%llu -> %s (%.2f s)\n",
               datagen::to_string(spec.distribution).c_str(), data.size(), data.dims(),
               static_cast<unsigned long long>(spec.seed), output.c_str(), sw.seconds());
  return 0;
}

}  // namespace sextant::cli
