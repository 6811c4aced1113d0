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
namespace {

struct Resolved {
  int max_level;
  int threads;
};

Resolved resolve(const Dataset& data, const SkycubeOptions& options) {
  const int d = data.dims();
  if (d < 1 || d > max_skycube_columns)
    throw Error::argument(
        "d", std::to_string(d), "1.." + std::to_string(max_skycube_columns),
        "a skycube needs 2^d-1 subspaces; d <= " + std::to_string(max_skycube_columns) + " supported");
  if (options.max_level < 0 || options.max_level > d)
    throw Error::argument("max_level", std::to_string(options.max_level),
                          "0.." + std::to_string(d) + " (0 = the full skycube; d = the column count)");
  if (options.threads < 0)
    throw Error::argument("threads", std::to_string(options.threads), ">= 0 (0 = every core)");
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return {options.max_level == 0 ? d : options.max_level, threads};
}

}  // namespace

SkycubeResult stsc_cpu(const Dataset& data, const SkycubeOptions& options) {
  const Resolved r = resolve(data, options);
  cpu::ExtendedSkylineCpu extended{r.threads};
  std::vector<cpu::SequentialCuboidCpu> hooks(static_cast<std::size_t>(r.threads));
  cpu::OmpTeam team(r.threads);
  return stsc(data, r.max_level, extended, std::span<cpu::SequentialCuboidCpu>(hooks), team);
}

SkycubeResult sdsc_cpu(const Dataset& data, const SkycubeOptions& options) {
  const Resolved r = resolve(data, options);
  cpu::ExtendedSkylineCpu extended{r.threads};
  std::vector<cpu::ParallelCuboidCpu> devices(1);
  devices[0].threads = r.threads;
  SerialTeam device_team;  // the CPU is one device: one cuboid at a time
  cpu::OmpTeam host_team(r.threads);
  return sdsc(data, r.max_level, extended, std::span<cpu::ParallelCuboidCpu>(devices), device_team,
              host_team);
}

}  // namespace sextant::skycube
