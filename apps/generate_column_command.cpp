// sextant generate-column: a binary column file ("SXTC", datagen/column_file.hpp) of seeded
// random values, the input format of `sextant window --input`.
#include <cstdio>
#include <string>

#include "apps/commands.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "datagen/column_file.hpp"

namespace sextant::cli {

namespace {

datagen::ColumnType parse_column_type(const std::string& text) {
  if (text == "int32") return datagen::ColumnType::int32;
  if (text == "int64") return datagen::ColumnType::int64;
  if (text == "float" || text == "float32") return datagen::ColumnType::float32;
  if (text == "double" || text == "float64") return datagen::ColumnType::float64;
  throw Error::argument("--value-type", text, "int32, int64, float or double", "unknown value type");
}

}  // namespace

int generate_column_command(int argc, char** argv) {
  Arguments args("generate-column",
                 {
                     {"n", "N", "number of values"},
                     {"value-type", "int32|int64|float|double", "element type (default int32)"},
                     {"seed", "S", "random seed (default 1)"},
                     {"output", "F", "the column file to write"},
                     {"help", "", "this text"},
                 });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const auto n = static_cast<std::size_t>(args.get_int("n", 0, 0, 1LL << 40));
  if (!args.has("n")) args.require("n");
  const datagen::ColumnType type = parse_column_type(args.get_or("value-type", "int32"));
  const auto seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1LL << 62));
  const std::string output = args.require("output");
  Stopwatch sw;
  datagen::write_column_file(output, datagen::generate_column(type, n, seed));
  std::fprintf(stderr, "sextant generate-column: %s n=%zu seed=%llu -> %s (%.2f s)\n",
               std::string(datagen::to_string(type)).c_str(), n, static_cast<unsigned long long>(seed),
               output.c_str(), sw.seconds());
  return 0;
}

}  // namespace sextant::cli
