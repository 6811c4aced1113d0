#include "cpu/skycube/cuboid_cpu.hpp"

#include <string>

#include "core/cpu_features.hpp"
#include "core/error.hpp"

namespace sextant::cpu {

void detail::check_allowed(bool allowed, std::string_view variant) {
  if (!allowed)
    throw Error::unsupported("cuboid variant " + std::string(variant) +
                             " cannot run here: the instruction sets allowed here go up to " +
                             std::string(to_string(simd_level())) + " (this CPU, or SEXTANT_SIMD)");
}

void SequentialCuboidCpu::compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
  engine.get().run(in.data, detail::candidates_of(in), in.subspace, true, 1, out.skyline, out.extended_only,
                   detail::best_cuboid_kernels(), in.skyline_only);
}

void ParallelCuboidCpu::compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
  engine.get().run(in.data, detail::candidates_of(in), in.subspace, true, threads, out.skyline, out.extended_only,
                   detail::best_cuboid_kernels(), in.skyline_only);
}

}  // namespace sextant::cpu
