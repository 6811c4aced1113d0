// The pane shard's rare paths for the built-in aggregates, compiled without AVX2 flags so that
// both kernels may call them.
#include "cpu/window/stream_builtin_aggregates.hpp"
#include "cpu/window/stream_pane_shard_impl.hpp"

namespace sextant::window::detail {

#define SEXTANT_INSTANTIATE(A) template class PaneShard<A>;
SEXTANT_STREAM_BUILTIN_AGGREGATES(SEXTANT_INSTANTIATE)
#undef SEXTANT_INSTANTIATE

}  // namespace sextant::window::detail
