// GBL (paper 001, section 3.1): every value updates each window it belongs to with a global
// atomic, no pre-aggregation. Consecutive threads start at different windows of their fan-out
// (the circular pattern) so that the S threads sharing windows do not all hit the same one.
#include "core/error.hpp"
#include "gpu/window/common_kernels.cuh"
#include "gpu/window/device_atomics.cuh"
#include "gpu/window/launch.cuh"
#include "templates/window/chunk_geometry.hpp"

namespace sextant::window::gpu::detail {

namespace {

template <AtomicAggregate Agg>
__global__ void __launch_bounds__(block_threads)
    gbl_kernel(const typename Agg::Input* __restrict__ in, typename Agg::Acc* __restrict__ out,
               ChunkGeometry g) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const std::uint32_t lane = threadIdx.x & 31;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < g.used; i += stride) {
    const std::uint64_t lo = g.first_window_ending_after(i);
    const std::uint64_t hi = g.last_window_starting_by(i);
    if (lo > hi) continue;  // a gap value (S > W)
    const std::uint64_t count = hi - lo + 1;
    const typename Agg::Acc v = Agg::lift(in[i]);
    std::uint64_t w = lane % count;
    for (std::uint64_t u = 0; u < count; ++u) {
      atomic_combine<Agg>(out + lo + w, v);
      if (++w == count) w = 0;
    }
  }
}

template <AtomicAggregate Agg>
void run_gbl(const Launch& launch) {
  using Acc = typename Agg::Acc;
  const CountWindowArgs& args = launch.args;
  const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
  Acc* out = args.out.as<Acc>();
  fill(out, g.windows, Agg::identity(), launch.stream);
  gbl_kernel<Agg><<<grid_for(g.used, block_threads, 1u << 20), block_threads, 0, launch.stream>>>(
      args.in.as<typename Agg::Input>(), out, g);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_gbl(const Launch& launch) {
  visit_aggregate(launch.args.in.type, launch.args.kind, [&](auto agg) {
    if constexpr (AtomicAggregate<decltype(agg)>)
      run_gbl<decltype(agg)>(launch);
    else  // the planner refuses such aggregates (missing_trait)
      throw Error::internal("GBL launched for an aggregate without a device atomic");
  });
}

}  // namespace sextant::window::gpu::detail
