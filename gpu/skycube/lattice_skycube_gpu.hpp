// SDSC on a GPU (paper 004, section 6.1): the lattice-traversal template with the GPU cuboid hook
// (ParallelCuboidGpu) and the GPU extended skyline on one device. The dataset goes to the device
// once; a few host threads, each with its own hook and CUDA stream, keep several cuboids of a
// level in flight so that small cuboids do not leave the GPU idle.
#pragma once

#include <cstddef>

#include "core/dataset.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

struct SdscGpuOptions {
  int gpu_ordinal = 0;
  int streams = 0;               // cuboids in flight (a host thread and a CUDA stream each): 1..64, 0 = 2
  std::size_t chunk_points = 0;  // the engine's chunk (tests); 0 = its default
};

// The (partial) skycube of `data` with SDSC on GPU `gpu_ordinal`. options.max_level: 0 = d, else
// 1..d; options.threads: CPU threads of the template's bookkeeping (0 = every core). Throws Error
// for d > max_skycube_columns, a bad max_level, threads or streams, an ordinal that names no
// device, or a CUDA failure. An empty dataset gives an empty cube. result.device_times holds the
// GPU's upload / kernel / download time per phase.
SkycubeResult sdsc_gpu(const Dataset& data, const SkycubeOptions& options = {}, int gpu_ordinal = 0);
SkycubeResult sdsc_gpu(const Dataset& data, const SkycubeOptions& options, const SdscGpuOptions& gpu_options);

}  // namespace sextant::skycube
