// The scalar variant of the CPU count-window hooks (built without SIMD flags).
#include "cpu/window/count_window_cpu.hpp"
#include "cpu/window/count_window_cpu_kernel.hpp"

namespace sextant::window {

template <>
void CpuCountWindowOn<cpu::ScalarIsa>::run(const CountWindowArgs& args) const {
  check_columns(args.in, args.out, args.spec, args.kind, args.positions);
  detail::count_window_cpu<cpu::ScalarIsa>(args, threads);
}

}  // namespace sextant::window
