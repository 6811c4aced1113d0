#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "gpu/skycube/extended_skyline_gpu.hpp"

namespace sextant::gpu {

ExtendedSkylineGpu::ExtendedSkylineGpu(int gpu_ordinal) : hook_(SkylineGpuOptions{gpu_ordinal, 0, nullptr}) {}
ExtendedSkylineGpu::ExtendedSkylineGpu(const SkylineGpuOptions& options) : hook_(options) {}
ExtendedSkylineGpu::ExtendedSkylineGpu(ExtendedSkylineGpu&&) noexcept = default;
ExtendedSkylineGpu& ExtendedSkylineGpu::operator=(ExtendedSkylineGpu&&) noexcept = default;
ExtendedSkylineGpu::~ExtendedSkylineGpu() = default;

void ExtendedSkylineGpu::bind(const GpuDataset& data) {
  hook_.bind(data);
}

skycube::CuboidOutput ExtendedSkylineGpu::full_cuboid(const Dataset& data) {
  skycube::CuboidOutput out;
  if (data.empty()) return out;
  if (data.size() > 0x7fffffffu) throw Error::unsupported("gpu-extended-skyline: more than 2^31 - 1 points");
  // Every point is a candidate: the identity list is implied (no id upload).
  hook_.compute_all(data, out);
  return out;
}

std::vector<PointId> ExtendedSkylineGpu::extended_skyline(const Dataset& data) {
  skycube::CuboidOutput out = full_cuboid(data);
  std::vector<PointId> ids(out.skyline.size() + out.extended_only.size());
  std::merge(out.skyline.begin(), out.skyline.end(), out.extended_only.begin(), out.extended_only.end(),
             ids.begin());
  return ids;
}

DeviceTimes ExtendedSkylineGpu::times() const noexcept {
  return hook_.times();
}

}  // namespace sextant::gpu
