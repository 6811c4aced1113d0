// The built-in aggregates' stages, compiled once for every user of the CPU backend.
#include "cpu/window/stream_window_cpu.hpp"

namespace sextant::window {

#define SEXTANT_INSTANTIATE(A)    \
  template class CpuPaneStage<A>; \
  template class CpuWindowStage<A>;
SEXTANT_STREAM_BUILTIN_AGGREGATES(SEXTANT_INSTANTIATE)
#undef SEXTANT_INSTANTIATE

}  // namespace sextant::window
