#include "cpu/skycube/mdmc_skycube_cpu.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"
#include "cpu/skycube/omp_team.hpp"
#include "templates/skycube/mdmc.hpp"

namespace sextant::skycube {

SkycubeResult mdmc_cpu(const Dataset& data, const SkycubeOptions& options) {
  const int d = data.dims();
  if (d < 1 || d > max_skycube_columns)
    throw Error::argument(
        "d", std::to_string(d), "1.." + std::to_string(max_skycube_columns),
        "a skycube needs 2^d-1 subspaces; d <= " + std::to_string(max_skycube_columns) + " supported");
  if (options.max_level < 0 || options.max_level > d)
    throw Error::argument("max_level", std::to_string(options.max_level),
                          "0.." + std::to_string(d) + " (0 = the column count)");
  if (options.threads < 0)
    throw Error::argument("threads", std::to_string(options.threads), ">= 0 (0 = every core)");
  const int max_level = options.max_level == 0 ? d : options.max_level;
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  cpu::ExtendedSkylineCpu extended{threads};  // the template returns an empty cube for n = 0
  cpu::OmpTeam team(threads);
  return mdmc(data, max_level, extended, MdmcCpu{}, team);
}

}  // namespace sextant::skycube
