// The CPU cuboid hook variants, registered here beside their code: one line per variant and
// kind. Listed fastest-expected first: the scheduler tries them in this order on every core and
// keeps the fastest it measures (scheduler/task.hpp); a variant whose instruction set this CPU
// lacks, or that SEXTANT_SIMD rules out, is offered as not runnable (can_run()).
#pragma once

#include <tuple>

#include "cpu/simd/isa.hpp"
#include "cpu/skycube/cuboid_cpu.hpp"

namespace sextant::cpu {

using SequentialCuboidCpuVariants = std::tuple<SequentialCuboidCpuOn<Avx512Isa>,  //
                                               SequentialCuboidCpuOn<Avx2Isa>,    //
                                               SequentialCuboidCpuOn<ScalarIsa>>;

using ParallelCuboidCpuVariants = std::tuple<ParallelCuboidCpuOn<Avx512Isa>,  //
                                             ParallelCuboidCpuOn<Avx2Isa>,    //
                                             ParallelCuboidCpuOn<ScalarIsa>>;

}  // namespace sextant::cpu
