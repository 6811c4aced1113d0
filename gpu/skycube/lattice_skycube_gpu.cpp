#include "gpu/skycube/lattice_skycube_gpu.hpp"

#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "cpu/omp_team.hpp"
#include "gpu/skycube/cuboid_gpu.hpp"
#include "gpu/skycube/device_times.hpp"
#include "gpu/skycube/extended_skyline_gpu.hpp"
#include "templates/skycube/sdsc.hpp"

namespace sextant::skycube {

SkycubeResult sdsc_gpu(const Dataset& data, const SkycubeOptions& options,
                       const SdscGpuOptions& gpu_options) {
  const ResolvedOptions r = resolve_options(data, options);
  if (gpu_options.streams < 0 || gpu_options.streams > 64)
    throw Error::argument("streams", std::to_string(gpu_options.streams), "0..64 (0 = 2)");
  gpu::check_gpu_ordinal(gpu_options.gpu_ordinal);
  const int streams = gpu_options.streams == 0 ? 2 : gpu_options.streams;

  Stopwatch clock;
  const gpu::GpuDataset on_device(data, gpu_options.gpu_ordinal);
  const double upload = clock.seconds();
  // cache_dataset: where the data has exact duplicates, the template hands the hooks its distinct
  // points (templates/skycube/distinct_points.hpp) instead of the bound dataset; each hook then
  // uploads those once, not per cuboid.
  const gpu::SkylineGpuOptions hook_options{gpu_options.gpu_ordinal, gpu_options.chunk_points, nullptr, true};
  gpu::ExtendedSkylineGpu extended(hook_options);
  extended.bind(on_device);
  std::vector<gpu::ParallelCuboidGpu> devices(static_cast<std::size_t>(streams),
                                              gpu::ParallelCuboidGpu(hook_options));
  for (gpu::ParallelCuboidGpu& hook : devices) hook.bind(on_device);
  cpu::OmpTeam device_team(streams);  // one cuboid per host thread, each on its hook's stream
  cpu::OmpTeam host_team(r.threads);

  SkycubeResult result =
      sdsc(data, r.max_level, extended, std::span<gpu::ParallelCuboidGpu>(devices), device_team, host_team);
  PhaseTimes phases;
  phases.add("dataset upload", upload);
  for (const PhaseTime& p : result.phases.phases()) phases.add(p.name, p.seconds);
  result.phases = std::move(phases);
  gpu::DeviceTimes lattice;
  for (const gpu::ParallelCuboidGpu& hook : devices) lattice += hook.times();
  result.device_times.add("dataset upload: gpu upload", on_device.upload_seconds());
  extended.times().add_to(result.device_times, "extended skyline");
  lattice.add_to(result.device_times, "lattice");
  return result;
}

SkycubeResult sdsc_gpu(const Dataset& data, const SkycubeOptions& options, int gpu_ordinal) {
  SdscGpuOptions gpu_options;
  gpu_options.gpu_ordinal = gpu_ordinal;
  return sdsc_gpu(data, options, gpu_options);
}

}  // namespace sextant::skycube
