// The full-space extended skyline S+(P) on a GPU: the first phase of the skycube templates.
// Plain C++ header (no CUDA). Points are sorted by the sum of their coordinates on the device; a
// point is then tested, one warp per point, only against the points whose sum is not larger
// (a strict dominator is better on every column, so its sum, added in the same column order
// with monotone rounding, is never larger). Exact under ties: equal points never strictly
// dominate each other.
#pragma once

#include <string_view>
#include <vector>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "templates/skycube/hooks.hpp"

namespace sextant::gpu {

struct ExtendedSkylineGpu {
  static constexpr std::string_view name = "gpu-extended-skyline";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;

  int gpu_ordinal = 0;

  // Ids (ascending) of the points no other point strictly dominates in the full space. Throws
  // Error for an ordinal that names no device or a CUDA failure.
  std::vector<PointId> extended_skyline(const Dataset& data);
};

static_assert(skycube::ExtendedSkylineHook<ExtendedSkylineGpu>);

}  // namespace sextant::gpu
