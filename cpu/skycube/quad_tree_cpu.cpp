#include "cpu/skycube/quad_tree_cpu.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sextant::cpu {

skycube::QuadTree QuadTreeCpu::quad_tree(const Dataset& data, std::span<const PointId> points) const {
  const int team = std::max(1, threads);
  return skycube::QuadTree::build(data, points, [team](std::size_t count, auto&& body) {
    const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for num_threads(team) schedule(static) if (n > 1)
    for (std::int64_t i = 0; i < n; ++i) body(static_cast<std::size_t>(i));
  });
}

}  // namespace sextant::cpu
