// The scalar variant of the CPU count-window hooks (built without SIMD flags).
#include "cpu/window/count_window_cpu.hpp"
#include "cpu/window/count_window_cpu_kernel.hpp"

namespace sextant::window {

template <>
void CpuCountWindowOn<cpu::ScalarIsa>::slice(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
  detail::slice_run<cpu::ScalarIsa>(run, begin, end);
}

template <>
void CpuCountWindowOn<cpu::ScalarIsa>::expand(const CpuCountRun& run, std::uint64_t begin,
                                              std::uint64_t end) {
  detail::expand_run<cpu::ScalarIsa>(run, begin, end);
}

}  // namespace sextant::window
