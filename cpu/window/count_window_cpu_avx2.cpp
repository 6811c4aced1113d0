// The AVX2 instantiation of the CPU count-window hooks (built with SEXTANT_AVX2_FLAGS; called
// only when the CPU has AVX2, see cpu/simd/isa.hpp).
#include "cpu/window/count_window_cpu_kernel.hpp"

namespace sextant::window::detail {

void count_window_cpu_avx2(const CountWindowArgs& args, int threads) {
#if defined(__AVX2__)
  count_window_cpu<cpu::Avx2Isa>(args, threads);
#else  // a compiler without AVX2 flags: the dispatcher never gets here on such a build's targets
  count_window_cpu<cpu::ScalarIsa>(args, threads);
#endif
}

}  // namespace sextant::window::detail
