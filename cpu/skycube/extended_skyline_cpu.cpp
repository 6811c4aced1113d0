#include "cpu/skycube/extended_skyline_cpu.hpp"

#include <algorithm>

#include "cpu/skycube/cuboid_engine.hpp"

namespace sextant::cpu {

// Through the classifying pass: its witnesses are the skyline points only (every strictly
// dominated point has a strict dominator there), where the plain pass keeps every point of S+ as
// a witness. With ties S+ is much larger than S: 3.0 s against 0.26 s for ties:8, n = 200 000,
// d = 6; about the same without ties.
std::vector<PointId> ExtendedSkylineCpu::extended_skyline(const Dataset& data) {
  const skycube::CuboidOutput split = full_cuboid(data);
  std::vector<PointId> out(split.skyline.size() + split.extended_only.size());
  std::merge(split.skyline.begin(), split.skyline.end(), split.extended_only.begin(),
             split.extended_only.end(), out.begin());
  return out;
}

skycube::CuboidOutput ExtendedSkylineCpu::full_cuboid(const Dataset& data) {
  skycube::CuboidOutput out;
  detail::EngineCache engine;
  detail::CandidateList all{{}, data.size(), true};
  engine.get().run(data, all, full_mask(data.dims()), true, std::max(threads, 1), out.skyline, out.extended_only);
  return out;
}

}  // namespace sextant::cpu
