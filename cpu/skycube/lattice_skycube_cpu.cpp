#include "cpu/skycube/lattice_skycube_cpu.hpp"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "cpu/skycube/cuboid_cpu.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/omp_team.hpp"
#include "templates/skycube/sdsc.hpp"
#include "templates/skycube/stsc.hpp"

namespace sextant::skycube {
SkycubeResult stsc_cpu(const Dataset& data, const SkycubeOptions& options) {
  const ResolvedOptions r = resolve_options(data, options);
  cpu::ExtendedSkylineCpu extended{r.threads};
  std::vector<cpu::SequentialCuboidCpu> hooks(static_cast<std::size_t>(r.threads));
  cpu::OmpTeam team(r.threads);
  return stsc(data, r.max_level, extended, std::span<cpu::SequentialCuboidCpu>(hooks), team);
}

SkycubeResult sdsc_cpu(const Dataset& data, const SkycubeOptions& options) {
  const ResolvedOptions r = resolve_options(data, options);
  cpu::ExtendedSkylineCpu extended{r.threads};
  std::vector<cpu::ParallelCuboidCpu> devices(1);
  devices[0].threads = r.threads;
  SerialTeam device_team;  // the CPU is one device: one cuboid at a time
  cpu::OmpTeam host_team(r.threads);
  return sdsc(data, r.max_level, extended, std::span<cpu::ParallelCuboidCpu>(devices), device_team,
              host_team);
}

}  // namespace sextant::skycube
