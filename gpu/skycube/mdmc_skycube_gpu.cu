#include <memory>

#include "core/error.hpp"
#include "core/task_team.hpp"
#include "gpu/skycube/device_times.hpp"
#include "gpu/skycube/extended_skyline_gpu.hpp"
#include "gpu/skycube/mdmc_skycube_gpu.hpp"
#include "gpu/skycube/quad_tree_gpu.hpp"
#include "templates/skycube/mdmc.hpp"

namespace sextant::skycube {

SkycubeResult mdmc_gpu(const Dataset& data, const SkycubeOptions& options,
                       const MdmcGpuOptions& gpu_options) {
  const auto [max_level, threads] = resolve_options(data, options);
  (void)threads;  // every phase with a parallel loop runs on the GPU
  MdmcGpuOptions hook_options = gpu_options;
  if (!hook_options.time_log) hook_options.time_log = std::make_shared<gpu::DeviceTimeLog>();
  const MdmcGpu hook(hook_options);  // validates the ordinal before any work
  gpu::ExtendedSkylineGpu extended(gpu_options.gpu_ordinal);
  gpu::QuadTreeGpu tree(gpu_options.gpu_ordinal);
  SerialTeam team;  // the parallelism is inside the hook
  // One task over all of S+: the hook batches the points itself, so fewer, larger calls are best.
  const MdmcPolicy policy{1, 1};
  SkycubeResult result = mdmc(data, max_level, extended, tree, hook, team, policy);
  extended.times().add_to(result.device_times, "extended skyline");
  tree.times().add_to(result.device_times, "quad tree");
  hook_options.time_log->total().add_to(result.device_times, "filter+refine");
  return result;
}

SkycubeResult mdmc_gpu(const Dataset& data, const SkycubeOptions& options, int gpu_ordinal) {
  MdmcGpuOptions gpu_options;
  gpu_options.gpu_ordinal = gpu_ordinal;
  return mdmc_gpu(data, options, gpu_options);
}

}  // namespace sextant::skycube
