// The scalar instantiation of the pane-stage kernel (built without AVX2 flags).
#include "cpu/window/stream_builtin_aggregates.hpp"
#include "cpu/window/stream_pane_kernel.hpp"

namespace sextant::window::detail {

template SliceScan scan_slice<cpu::ScalarIsa>(const std::int64_t*, const std::int64_t*, std::size_t);
template bool in_order_slice<cpu::ScalarIsa>(const std::int64_t*, const std::int64_t*, std::size_t,
                                             std::int64_t);
#define SEXTANT_INSTANTIATE(A)                                                                          \
  template void accumulate_slice<A, cpu::ScalarIsa>(PaneShard<A>&, const PaneInput<typename A::Input>&, \
                                                    const PaneDivider&, std::int64_t, bool, PaneTally&);
SEXTANT_STREAM_BUILTIN_AGGREGATES(SEXTANT_INSTANTIATE)
#undef SEXTANT_INSTANTIATE

}  // namespace sextant::window::detail
