#include <cstdio>
#include <istream>
#include <string>

#include "apps/commands.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "datagen/input_file.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::cli {

namespace {

// Errors of the file itself (missing, a directory, unreadable: exit 3 with the reason) come
// before those of its content (exit 2).
skycube::HashCube load_cube(const std::string& path) {
  datagen::InputFile file(path);
  datagen::InputStreambuf buffer(file);
  std::istream in(&buffer);
  try {
    return skycube::HashCube::load(in, path);
  } catch (const Error&) {
    buffer.rethrow_error();  // a read error reads as a truncated file to load()
    throw;
  }
}

}  // namespace

int query_command(int argc, char** argv) {
  Arguments args("query", {
                              {"cube", "F", "a skycube saved with 'sextant skycube --format binary'"},
                              {"subspace", "0,3,5", "the subspace's columns (0-based)"},
                              {"help", "", "this text"},
                          });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const std::string path = args.require("cube");
  const std::string columns = args.require("subspace");
  const skycube::HashCube cube = load_cube(path);
  const Mask m = parse_column_list("--subspace", columns, cube.dims());
  const auto ids = cube.skyline(m);
  std::string line = std::to_string(m);
  line.append(" ").append(std::to_string(ids.size()));
  for (PointId id : ids) line.append(" ").append(std::to_string(id));  // not " " + ...: GCC 12 -Wrestrict
  line += "\n";
  if (std::fputs(line.c_str(), stdout) < 0 || std::fflush(stdout) != 0) throw Error::io("<stdout>", "write failed");
  return 0;
}

}  // namespace sextant::cli
