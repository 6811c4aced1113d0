// The CPU count-window variants, registered here beside their code: one line per variant,
// fastest-expected first (the scheduler measures every one a CPU worker can run and keeps the
// fastest; the conformance test runs each one this machine can).
#pragma once

#include <tuple>

#include "cpu/simd/isa.hpp"
#include "cpu/window/count_window_cpu.hpp"

namespace sextant::window {

using CpuCountWindowVariants = std::tuple<CpuCountWindowOn<cpu::Avx512Isa>,  //
                                          CpuCountWindowOn<cpu::Avx2Isa>,    //
                                          CpuCountWindowOn<cpu::ScalarIsa>>;

}  // namespace sextant::window
