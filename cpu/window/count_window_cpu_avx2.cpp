// The avx2 variant of the CPU count-window hooks (built with its instruction set's flags; run
// only where the CPU has it, see CpuCountWindowOn::can_run).
#include "cpu/window/count_window_cpu.hpp"
#include "cpu/window/count_window_cpu_kernel.hpp"

namespace sextant::window {

template <>
void CpuCountWindowOn<cpu::Avx2Isa>::run(const CountWindowArgs& args) const {
  check_columns(args.in, args.out, args.spec, args.kind, args.positions);
  detail::count_window_cpu<cpu::Avx2Isa>(args, threads);
}

}  // namespace sextant::window
