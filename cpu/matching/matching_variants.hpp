// The matching CPU hook variants, registered here beside their code: one line per variant, listed
// fastest-expected first (the scheduler tries them in this order on every core and keeps the
// fastest it measures); a variant whose instruction set this CPU lacks, or that SEXTANT_SIMD rules
// out, is offered as not runnable.
#pragma once

#include <tuple>

#include "cpu/matching/match_cpu.hpp"
#include "cpu/simd/isa.hpp"

namespace sextant::matching {

using MatchCpuVariants = std::tuple<MatchCpuOn<cpu::Avx512Isa>,  //
                                    MatchCpuOn<cpu::Avx2Isa>,    //
                                    MatchCpuOn<cpu::ScalarIsa>>;

}  // namespace sextant::matching
