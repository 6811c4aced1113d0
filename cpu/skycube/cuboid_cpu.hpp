// CPU cuboid hooks for the lattice templates (paper 004, Section 5.1): the Hybrid-style tiled
// skyline of cuboid_engine.hpp, producing S_δ and S+_δ \ S_δ of the candidates. One type runs on
// the calling thread (STSC runs many at once), the other on an OpenMP team (SDSC).
#pragma once

#include <string_view>

#include "core/device.hpp"
#include "cpu/skycube/cuboid_engine.hpp"
#include "templates/skycube/hooks.hpp"

namespace sextant::cpu {

struct SequentialCuboidCpu {
  static constexpr std::string_view name = "cpu-hybrid-cuboid";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool parallel = false;

  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out);

  detail::EngineCache engine{};
};

struct ParallelCuboidCpu {
  static constexpr std::string_view name = "cpu-hybrid-cuboid-parallel";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool parallel = true;

  int threads = 1;  // OpenMP threads for one cuboid

  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out);

  detail::EngineCache engine{};
};

static_assert(skycube::SequentialCuboidHook<SequentialCuboidCpu>);
static_assert(skycube::ParallelCuboidHook<ParallelCuboidCpu>);

}  // namespace sextant::cpu
