#include <cstdio>
#include <fstream>
#include <string>

#include "apps/arguments.hpp"
#include "apps/commands.hpp"
#include "core/error.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::cli {

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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error::io(path, "cannot open the cube file");
  const auto cube = skycube::HashCube::load(in, path);
  const Mask m = parse_column_list("--subspace", columns, cube.dims());
  const auto ids = cube.skyline(m);
  std::string line = std::to_string(m);
  line.append(" ").append(std::to_string(ids.size()));
  for (PointId id : ids) line += " " + std::to_string(id);
  line += "\n";
  if (std::fputs(line.c_str(), stdout) < 0 || std::fflush(stdout) != 0) throw Error::io("<stdout>", "write failed");
  return 0;
}

}  // namespace sextant::cli
