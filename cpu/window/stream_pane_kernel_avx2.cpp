// The AVX2 instantiation of the pane-stage kernel (built with SEXTANT_AVX2_FLAGS; called only
// when the CPU has AVX2, see cpu/simd/isa.hpp). The slow paths it calls are compiled without
// those flags (stream_pane_shard.cpp).
#include "cpu/window/stream_builtin_aggregates.hpp"
#include "cpu/window/stream_pane_kernel.hpp"

namespace sextant::window::detail {

template SliceScan scan_slice<cpu::Avx2Isa>(const std::int64_t*, const std::int64_t*, std::size_t);
template bool in_order_slice<cpu::Avx2Isa>(const std::int64_t*, const std::int64_t*, std::size_t,
                                           std::int64_t);
#define SEXTANT_INSTANTIATE(A)                                                                        \
  template void accumulate_slice<A, cpu::Avx2Isa>(PaneShard<A>&, const PaneInput<typename A::Input>&, \
                                                  const PaneDivider&, std::int64_t, bool, PaneTally&);
SEXTANT_STREAM_BUILTIN_AGGREGATES(SEXTANT_INSTANTIATE)
#undef SEXTANT_INSTANTIATE

}  // namespace sextant::window::detail
