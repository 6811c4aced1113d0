// One subspace's skyline of a few points (the skyline front door's calling-thread path, below
// policy::SkylineSplit::small_max_points): points in order of their sum over the subspace, each
// tested against the skyline points of smaller sums and the points of its own sum. No tiles, no
// codes, no SIMD: for a hundred points the cuboid engine's setup costs more than the whole test.
#pragma once

#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"

namespace sextant::cpu {

// Ids ascending. Exact: a dominator has a sum <= the point's (float addition rounds
// monotonically), and a dominated dominator is itself dominated by a skyline point of a sum no
// larger (transitivity), so the skyline points of smaller sums and the whole group of equal sums
// decide every point.
std::vector<PointId> small_skyline(const Dataset& data, Mask subspace);

}  // namespace sextant::cpu
