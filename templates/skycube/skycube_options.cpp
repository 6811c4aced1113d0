#include "templates/skycube/skycube_options.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "core/error.hpp"

namespace sextant::skycube {

ResolvedOptions resolve_options(const Dataset& data, const SkycubeOptions& options) {
  const int d = data.dims();
  check_skycube_columns(d);
  if (options.max_level < 0 || options.max_level > d)
    throw Error::argument("max_level", std::to_string(options.max_level),
                          "0.." + std::to_string(d) + " (0 = the full skycube)");
  if (options.threads < 0)
    throw Error::argument("threads", std::to_string(options.threads), "0 (every core) or more");
  ResolvedOptions r;
  r.max_level = options.max_level == 0 ? d : options.max_level;
  r.threads = options.threads > 0 ? options.threads
                                  : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return r;
}

}  // namespace sextant::skycube
