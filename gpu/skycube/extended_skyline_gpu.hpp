// The full-space extended skyline S+(P) on a GPU: the first phase of the skycube templates when a
// GPU is among the devices. Plain C++ header (no CUDA). The same engine as the SDSC cuboid hook
// (cuboid_gpu.hpp, skyline_engine.cuh) over every point in the full space: points sorted by their
// coordinate sum, settled chunk by chunk against the skyline found so far, octile codes pruning
// the comparisons. One pass classifies every point, so it also splits S+(P) into S(P) and the
// rest (full_cuboid), which the lattice templates take as their top cuboid. Exact under ties:
// equal points never dominate each other.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "gpu/skycube/cuboid_gpu.hpp"
#include "gpu/skycube/device_times.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/lattice_traversal.hpp"

namespace sextant::gpu {

class ExtendedSkylineGpu {
 public:
  static constexpr std::string_view name = "gpu-extended-skyline";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;

  ExtendedSkylineGpu() = default;  // GPU 0, checked on first use
  // Throw Error for an ordinal that names no device.
  explicit ExtendedSkylineGpu(int gpu_ordinal);
  explicit ExtendedSkylineGpu(const SkylineGpuOptions& options);
  ExtendedSkylineGpu(ExtendedSkylineGpu&&) noexcept;
  ExtendedSkylineGpu& operator=(ExtendedSkylineGpu&&) noexcept;
  ~ExtendedSkylineGpu();

  // Uses `data` already on the device when the input is data.data(); otherwise each call uploads.
  void bind(const GpuDataset& data);

  // Ids (ascending) of the points no other point strictly dominates in the full space. Throws
  // Error for an ordinal that names no device or a CUDA failure.
  std::vector<PointId> extended_skyline(const Dataset& data);
  // The same pass, split: skyline = S(P), extended_only = S+(P) \ S(P).
  skycube::CuboidOutput full_cuboid(const Dataset& data);

  // Device time of every call so far (uploads included).
  DeviceTimes times() const noexcept;

 private:
  ParallelCuboidGpu hook_;
};

static_assert(skycube::ClassifyingExtendedSkylineHook<ExtendedSkylineGpu>);

}  // namespace sextant::gpu
