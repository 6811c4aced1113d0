#include "cpu/skycube/cuboid_cpu.hpp"

namespace sextant::cpu {

void SequentialCuboidCpu::compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
  engine.get().run(in.data, {in.candidates}, in.subspace, true, 1, out.skyline, out.extended_only);
}

void ParallelCuboidCpu::compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
  engine.get().run(in.data, {in.candidates}, in.subspace, true, threads, out.skyline, out.extended_only);
}

}  // namespace sextant::cpu
