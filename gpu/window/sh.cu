// SH (paper 001, section 3.1): each block pre-aggregates a tile of values into the windows
// touching it, held in shared memory (fan-out shared-memory atomics per value, circular
// pattern against bank conflicts), then flushes them: windows inside the tile are stored,
// windows crossing its edges combined atomically (set to the identity beforehand).
#include "core/error.hpp"
#include "gpu/window/common_kernels.cuh"
#include "gpu/window/device_atomics.cuh"
#include "gpu/window/launch.cuh"
#include "templates/window/chunk_geometry.hpp"

namespace sextant::window::gpu::detail {

namespace {

template <AtomicAggregate Agg>
__global__ void __launch_bounds__(block_threads)
    sh_kernel(const typename Agg::Input* __restrict__ in, typename Agg::Acc* __restrict__ out,
              ChunkGeometry g, std::uint64_t tile) {
  using Acc = typename Agg::Acc;
  extern __shared__ __align__(16) unsigned char smem[];
  Acc* slots = reinterpret_cast<Acc*>(smem);
  const std::uint64_t t0 = std::uint64_t{blockIdx.x} * tile;
  const std::uint64_t t1 = min(t0 + tile, g.used);
  const std::uint64_t k_lo = g.first_window_ending_after(t0);
  const std::uint64_t k_hi = g.last_window_starting_by(t1 - 1);
  if (k_lo > k_hi) return;
  const std::uint64_t windows = k_hi - k_lo + 1;
  for (std::uint64_t w = threadIdx.x; w < windows; w += block_threads) slots[w] = Agg::identity();
  __syncthreads();
  const std::uint32_t lane = threadIdx.x & 31;
  for (std::uint64_t i = t0 + threadIdx.x; i < t1; i += block_threads) {
    const std::uint64_t lo = g.first_window_ending_after(i);
    const std::uint64_t hi = g.last_window_starting_by(i);
    if (lo > hi) continue;
    const std::uint64_t count = hi - lo + 1;
    const Acc v = Agg::lift(in[i]);
    std::uint64_t w = lane % count;
    for (std::uint64_t u = 0; u < count; ++u) {
      atomic_combine<Agg>(slots + (lo - k_lo) + w, v);
      if (++w == count) w = 0;
    }
  }
  __syncthreads();
  for (std::uint64_t w = threadIdx.x; w < windows; w += block_threads) {
    const std::uint64_t k = k_lo + w;
    if (g.window_inside(k, t0, t1))
      out[k] = slots[w];
    else
      atomic_combine<Agg>(out + k, slots[w]);
  }
}

template <AtomicAggregate Agg>
void run_sh(const Launch& launch) {
  using Acc = typename Agg::Acc;
  const CountWindowArgs& args = launch.args;
  const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
  const std::uint64_t tile = launch.plan.tile;
  Acc* out = args.out.as<Acc>();
  init_crossing(out, g.windows, g.slide, g.length, g.used, tile, Agg::identity(), launch.stream);
  auto kernel = sh_kernel<Agg>;
  allow_shared(kernel, launch.plan.shared_bytes);
  const std::uint64_t tiles = (g.used + tile - 1) / tile;
  kernel<<<static_cast<unsigned>(tiles), block_threads, launch.plan.shared_bytes, launch.stream>>>(
      args.in.as<typename Agg::Input>(), out, g, tile);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_sh(const Launch& launch) {
  visit_aggregate(launch.args.in.type, launch.args.kind, [&](auto agg) {
    if constexpr (AtomicAggregate<decltype(agg)>)
      run_sh<decltype(agg)>(launch);
    else  // the planner refuses such aggregates (missing_trait)
      throw Error::internal("SH launched for an aggregate without a device atomic");
  });
}

}  // namespace sextant::window::gpu::detail
