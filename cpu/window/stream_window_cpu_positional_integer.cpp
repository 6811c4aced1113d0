// The positional built-ins' stages (argmin, argmax, first, last) over integer values, compiled once
// for every user of the CPU backend; split by value family so that the units build in parallel.
#include "cpu/window/stream_window_cpu.hpp"

namespace sextant::window {

#define SEXTANT_INSTANTIATE(A)    \
  template class CpuPaneStage<A>; \
  template class CpuWindowStage<A>;
SEXTANT_STREAM_POSITIONALS_OF(SEXTANT_INSTANTIATE, std::int32_t)
SEXTANT_STREAM_POSITIONALS_OF(SEXTANT_INSTANTIATE, std::int64_t)
#undef SEXTANT_INSTANTIATE

}  // namespace sextant::window
