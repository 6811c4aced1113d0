// COOP-OPT: slicing and cooperative expansion in one pass over the input (tile_kernel.cuh), or,
// when S > W leaves wide gaps, the windows read directly (heads_kernel.cuh).
#include "core/error.hpp"
#include "gpu/window/heads_kernel.cuh"
#include "gpu/window/launch.cuh"
#include "gpu/window/tile_kernel.cuh"

namespace sextant::window::gpu::detail {

namespace {

template <AtomicAggregate Agg>
void run_coop(const Launch& launch) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  const CountWindowArgs& args = launch.args;
  const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
  Acc* out = args.out.as<Acc>();
  if (launch.plan.heads) {
    launch_heads<Agg>(args.in.as<T>(), out, g, launch.plan.group, launch.plan.pieces, launch.multiprocessors,
                      launch.stream);
    return;
  }
  TileParams p;
  p.g = g;
  p.layout = make_tile_layout(g, sizeof(T), sizeof(Acc), /*expand=*/true, launch.plan.stages);
  p.tiles = (g.used + p.layout.tile - 1) / p.layout.tile;
  p.head_shift = head_shift(args.in.data, sizeof(T));
  init_crossing(out, g.windows, g.slide, g.length, g.used, p.layout.tile, Agg::identity(), launch.stream);
  launch_tile_kernel<Agg, TileMode::coop>(args.in.as<T>(), out, nullptr, p, launch.multiprocessors,
                                          launch.stream);
}

}  // namespace

void launch_coop(const Launch& launch) {
  visit_aggregate(launch.args.in.type, launch.args.kind, [&](auto agg) {
    if constexpr (AtomicAggregate<decltype(agg)>)
      run_coop<decltype(agg)>(launch);
    else  // the planner refuses such aggregates (missing_trait)
      throw Error::internal("COOP launched for an aggregate without a device atomic");
  });
}

}  // namespace sextant::window::gpu::detail
