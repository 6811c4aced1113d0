// The full-space extended skyline S+(P) on the CPU: the first phase of every skycube template
// (and of MDMC). Same tiled algorithm as the cuboid hooks, run over all points with strict
// dominance, on `threads` OpenMP threads (one classifying pass for both methods).
#pragma once

#include <string_view>
#include <vector>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "templates/skycube/hooks.hpp"

namespace sextant::cpu {

struct ExtendedSkylineCpu {
  static constexpr std::string_view name = "cpu-extended-skyline";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  int threads = 1;  // OpenMP threads; values below 1 mean 1

  // Ids (ascending) of the points no other point strictly dominates in the full space.
  std::vector<PointId> extended_skyline(const Dataset& data);
  // The same pass, split: skyline = S(P) (not dominated), extended_only = S+(P) \ S(P). Lets the
  // lattice templates skip recomputing the full-space cuboid from S+(P).
  skycube::CuboidOutput full_cuboid(const Dataset& data);
};

static_assert(skycube::ExtendedSkylineHook<ExtendedSkylineCpu>);

}  // namespace sextant::cpu
