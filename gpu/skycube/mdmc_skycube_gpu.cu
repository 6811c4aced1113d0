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
