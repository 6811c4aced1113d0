// MDMC on a GPU: the public entry of the point-parallel skycube template with the GPU filter +
// refine hook (MdmcGpu) and the GPU extended skyline (ExtendedSkylineGpu) on one device.
#pragma once

#include "core/dataset.hpp"
#include "gpu/skycube/mdmc_gpu.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// The (partial) skycube of `data` on GPU `gpu_ordinal`. options.max_level: 0 = d, else 1..d;
// options.threads is validated but unused (every parallel phase runs on the GPU). Throws Error for d >
// max_skycube_columns, a bad max_level or threads, an ordinal that names no device, or a CUDA
// failure. An empty dataset gives an empty cube. result.device_times holds the GPU's upload /
// kernel / download time per phase.
SkycubeResult mdmc_gpu(const Dataset& data, const SkycubeOptions& options = {}, int gpu_ordinal = 0);

// The same with every hook option (tests: forcing the global-memory bitmaps).
SkycubeResult mdmc_gpu(const Dataset& data, const SkycubeOptions& options, const MdmcGpuOptions& gpu_options);

}  // namespace sextant::skycube
