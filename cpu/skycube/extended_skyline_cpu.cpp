#include "cpu/skycube/extended_skyline_cpu.hpp"

#include <algorithm>

#include "cpu/skycube/cuboid_engine.hpp"

namespace sextant::cpu {

std::vector<PointId> ExtendedSkylineCpu::extended_skyline(const Dataset& data) {
  std::vector<PointId> out;
  std::vector<PointId> unused;
  detail::CuboidEngine engine;
  detail::CandidateList all{{}, data.size(), true};
  engine.run(data, all, full_mask(data.dims()), false, std::max(threads, 1), out, unused);
  return out;
}

skycube::CuboidOutput ExtendedSkylineCpu::full_cuboid(const Dataset& data) {
  skycube::CuboidOutput out;
  detail::CuboidEngine engine;
  detail::CandidateList all{{}, data.size(), true};
  engine.run(data, all, full_mask(data.dims()), true, std::max(threads, 1), out.skyline, out.extended_only);
  return out;
}

}  // namespace sextant::cpu
