// The scalar instantiation of the CPU count-window hooks (built without AVX2 flags).
#include "cpu/window/count_window_cpu_kernel.hpp"

namespace sextant::window::detail {

void count_window_cpu_scalar(const CountWindowArgs& args, int threads) {
  count_window_cpu<cpu::ScalarIsa>(args, threads);
}

}  // namespace sextant::window::detail
