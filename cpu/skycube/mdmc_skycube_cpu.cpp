#include "cpu/skycube/mdmc_skycube_cpu.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"
#include "cpu/skycube/omp_team.hpp"
#include "cpu/skycube/quad_tree_cpu.hpp"
#include "templates/skycube/mdmc.hpp"

namespace sextant::skycube {

SkycubeResult mdmc_cpu(const Dataset& data, const SkycubeOptions& options) {
  const auto [max_level, threads] = resolve_options(data, options);
  cpu::ExtendedSkylineCpu extended{threads};  // the template returns an empty cube for n = 0
  cpu::QuadTreeCpu tree{threads};
  cpu::OmpTeam team(threads);
  return mdmc(data, max_level, extended, tree, MdmcCpu{}, team);
}

}  // namespace sextant::skycube
