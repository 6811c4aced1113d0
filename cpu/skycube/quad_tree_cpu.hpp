// MDMC's quad tree built on the CPU's cores: QuadTree::build with an OpenMP parallel-for (columns
// sorted side by side, labels and leaves in parallel, the leaf order by parallel runs and merges).
#pragma once

#include <span>
#include <string_view>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/quad_tree.hpp"

namespace sextant::cpu {

struct QuadTreeCpu {
  static constexpr std::string_view name = "cpu-quad-tree";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  int threads = 1;  // OpenMP threads; values below 1 mean 1

  skycube::QuadTree quad_tree(const Dataset& data, std::span<const PointId> points) const;
};

static_assert(skycube::QuadTreeHook<QuadTreeCpu>);

}  // namespace sextant::cpu
