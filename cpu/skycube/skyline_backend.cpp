// The skyline front door's calling-thread path (api/backends.hpp): small inputs, no scheduler.
#include <numeric>
#include <vector>

#include "api/backends.hpp"
#include "cpu/skycube/cuboid_cpu.hpp"
#include "cpu/skycube/small_skyline.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::backends {

std::vector<PointId> skyline_here(const Dataset& data, Mask subspace) {
  if (data.size() <= skycube::policy::SkylineSplit::small_max_points)
    return cpu::small_skyline(data, subspace);
  std::vector<PointId> ids(data.size());
  std::iota(ids.begin(), ids.end(), PointId{0});
  cpu::ParallelCuboidCpu hook{1};  // its engine is a kept one (cuboid_engine.hpp)
  skycube::CuboidOutput out;
  hook.compute(skycube::CuboidInput{data, ids, subspace, true}, out);
  return std::move(out.skyline);
}

}  // namespace sextant::backends
