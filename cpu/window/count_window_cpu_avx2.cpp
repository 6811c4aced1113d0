// The avx2 variant of the CPU count-window hooks (built with its instruction set's flags; run
// only where the CPU has it, see CpuCountWindowOn::can_run).
#include "cpu/window/count_window_cpu.hpp"
#include "cpu/window/count_window_cpu_kernel.hpp"

namespace sextant::window {

template <>
void CpuCountWindowOn<cpu::Avx2Isa>::slice(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
  detail::slice_run<cpu::Avx2Isa>(run, begin, end);
}

template <>
void CpuCountWindowOn<cpu::Avx2Isa>::expand(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
  detail::expand_run<cpu::Avx2Isa>(run, begin, end);
}

}  // namespace sextant::window
