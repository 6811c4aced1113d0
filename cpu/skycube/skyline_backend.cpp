// The skyline front door's calling-thread path (api/backends.hpp): small inputs, no scheduler.
#include <numeric>
#include <vector>

#include "api/backends.hpp"
#include "cpu/skycube/cuboid_cpu.hpp"

namespace sextant::backends {

std::vector<PointId> skyline_here(const Dataset& data, Mask subspace) {
  std::vector<PointId> ids(data.size());
  std::iota(ids.begin(), ids.end(), PointId{0});
  cpu::ParallelCuboidCpu hook{1};
  skycube::CuboidOutput out;
  hook.compute(skycube::CuboidInput{data, ids, subspace, true}, out);
  return std::move(out.skyline);
}

}  // namespace sextant::backends
