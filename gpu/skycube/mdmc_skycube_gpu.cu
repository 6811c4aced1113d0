#include <algorithm>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "gpu/skycube/mdmc_skycube_gpu.hpp"
#include "templates/skycube/mdmc.hpp"
#include "templates/skycube/task_team.hpp"

namespace sextant::skycube {

SkycubeResult mdmc_gpu(const Dataset& data, const SkycubeOptions& options,
                       const MdmcGpuOptions& gpu_options) {
  const auto [max_level, threads] = resolve_options(data, options);
  cpu::ExtendedSkylineCpu extended{threads};
  const MdmcGpu hook(gpu_options);  // validates the ordinal before any work
  SerialTeam team;                  // the parallelism is inside the hook
  // One task over all of S+: the hook batches the points itself, so fewer, larger calls are best.
  const MdmcPolicy policy{1, 1};
  return mdmc(data, max_level, extended, hook, team, policy);
}

SkycubeResult mdmc_gpu(const Dataset& data, const SkycubeOptions& options, int gpu_ordinal) {
  MdmcGpuOptions gpu_options;
  gpu_options.gpu_ordinal = gpu_ordinal;
  return mdmc_gpu(data, options, gpu_options);
}

}  // namespace sextant::skycube
