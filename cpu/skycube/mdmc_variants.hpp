// The MDMC CPU hook variants, registered here beside their code: one line per variant. Listed
// fastest-expected first: the scheduler tries them in this order on every core and keeps the
// fastest it measures (scheduler/task.hpp); a variant whose instruction set this CPU lacks, or
// that SEXTANT_SIMD rules out, is offered as not runnable.
#pragma once

#include <tuple>

#include "cpu/simd/isa.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"

namespace sextant::skycube {

using MdmcCpuVariants = std::tuple<MdmcCpuOn<cpu::Avx512Isa>,  //
                                   MdmcCpuOn<cpu::Avx2Isa>,    //
                                   MdmcCpuOn<cpu::ScalarIsa>>;

}  // namespace sextant::skycube
