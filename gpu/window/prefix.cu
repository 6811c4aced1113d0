// DIRECT-PREFIX and REDUCED-PREFIX (paper 001, sections 3.2.2 and 3.3), for invertible
// functions: a prefix scan with decoupled look-back (one pass, O(1) state between blocks) and
// one difference per window, whatever the fan-out.
//   DIRECT-PREFIX: P = CUB's scan of the lifted input; window k = P[kS + W] - P[kS].
//   REDUCED-PREFIX, as in the paper: COOP-OPT's slicing writes C[j] and A[j]
//   (tile_kernel.cuh), CUB's scan runs over C only (S times fewer items), and window
//   k = PC[k + q] - PC[k] + A[k + q].
//   REDUCED-PREFIX with a scan of tile totals: the tile kernel writes each tile's total and the
//   running totals inside the tile at chunk starts (and head ends), CUB scans the tile totals
//   only, and window k = (E[tile] + L at its end) - (E[tile] + L at its start): with r = 0 one
//   array of running totals serves both ends, 4n + 24n/S bytes in all.
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include "gpu/window/heads_kernel.cuh"
#include "gpu/window/launch.cuh"
#include "gpu/window/tile_kernel.cuh"

namespace sextant::window::gpu::detail {

namespace {

template <class Agg>
struct LiftOp {
  __host__ __device__ typename Agg::Acc operator()(typename Agg::Input x) const { return Agg::lift(x); }
};

template <class Agg>
struct CombineOp {
  __host__ __device__ typename Agg::Acc operator()(typename Agg::Acc a, typename Agg::Acc b) const {
    return Agg::combine(a, b);
  }
};

// out[k] = prefix[k * stride + span] - prefix[k * stride] (+ head[k + head_offset]).
template <class Agg>
__global__ void __launch_bounds__(block_threads)
    prefix_expand_kernel(const typename Agg::Acc* __restrict__ prefix,
                         const typename Agg::Acc* __restrict__ head, typename Agg::Acc* __restrict__ out,
                         std::uint64_t windows, std::uint64_t stride, std::uint64_t span,
                         std::uint64_t head_offset) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < windows; k += step) {
    const std::uint64_t at = k * stride;
    typename Agg::Acc v = Agg::uncombine(prefix[at + span], prefix[at]);
    if (head != nullptr) v = Agg::combine(v, head[k + head_offset]);
    out[k] = v;
  }
}

// In-place inclusive scan of data[0 .. count) with the workspace's scratch slot.
template <class Agg, class Input>
void inclusive_scan(Input in, typename Agg::Acc* out, std::uint64_t count, const Launch& launch) {
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, CombineOp<Agg>{}, count, launch.stream));
  void* scratch = launch.workspace.reserve(scan_scratch_slot, bytes);
  SEXTANT_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(scratch, bytes, in, out, CombineOp<Agg>{}, count, launch.stream));
}

template <class Agg>
void expand(const typename Agg::Acc* prefix, const typename Agg::Acc* head, typename Agg::Acc* out,
            std::uint64_t windows, std::uint64_t stride, std::uint64_t span, std::uint64_t head_offset,
            cudaStream_t stream) {
  prefix_expand_kernel<Agg><<<grid_for(windows, block_threads * 4, 1u << 20), block_threads, 0, stream>>>(
      prefix, head, out, windows, stride, span, head_offset);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

template <class Agg>
void run_direct(const Launch& launch) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  if constexpr (InvertibleAggregate<Agg>) {
    const CountWindowArgs& args = launch.args;
    const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
    auto* prefix = static_cast<Acc*>(launch.workspace.reserve(partials_slot, (g.used + 1) * sizeof(Acc)));
    SEXTANT_CUDA_CHECK(cudaMemsetAsync(prefix, 0, sizeof(Acc), launch.stream));  // the identity, 0
    inclusive_scan<Agg>(thrust::make_transform_iterator(args.in.as<T>(), LiftOp<Agg>{}), prefix + 1, g.used,
                        launch);
    expand<Agg>(prefix, nullptr, args.out.as<Acc>(), g.windows, g.slide, g.length, 0, launch.stream);
  } else {
    throw Error::internal("DIRECT-PREFIX launched for a non-invertible function");
  }
}

// Window k from running totals: start = E[tile of kS] + L[k]; end (one past its last value,
// e = (k + q)S + r) = E[tile of e - 1] + Lend[k], or with r = 0 the start of chunk k + q.
template <class Agg>
__global__ void __launch_bounds__(block_threads)
    tile_scan_expand_kernel(const typename Agg::Acc* __restrict__ tile_before,
                            const typename Agg::Acc* __restrict__ tile_total,
                            const typename Agg::Acc* __restrict__ starts,
                            const typename Agg::Acc* __restrict__ ends, typename Agg::Acc* __restrict__ out,
                            ChunkGeometry g, std::uint64_t tile, std::uint64_t tiles) {
  using Acc = typename Agg::Acc;
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < g.windows; k += step) {
    const std::uint64_t first = k * g.slide;
    const Acc start = Agg::combine(tile_before[first / tile], starts[k]);
    const std::uint64_t e = first + g.length;
    Acc end;
    if (g.rest != 0)
      end = Agg::combine(tile_before[(e - 1) / tile], ends[k]);
    else if (e == g.used)  // the end of the data: the grand total
      end = Agg::combine(tile_before[tiles - 1], tile_total[tiles - 1]);
    else
      end = Agg::combine(tile_before[e / tile], starts[k + g.full_chunks]);
    out[k] = Agg::uncombine(end, start);
  }
}

template <class Agg>
void run_tile_scan(const Launch& launch, TileParams p, typename Agg::Acc* out) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  const ChunkGeometry& g = p.g;
  const bool has_head = g.rest != 0;
  auto* base = static_cast<Acc*>(launch.workspace.reserve(
      partials_slot, (2 * (p.tiles + 1) + g.chunks + (has_head ? g.windows : 0)) * sizeof(Acc)));
  Acc* totals = base;
  Acc* before = base + p.tiles + 1;
  Acc* starts = before + p.tiles + 1;
  Acc* ends = has_head ? starts + g.chunks : nullptr;
  p.tile_total = totals;
  p.local_start = starts;
  p.local_end = ends;
  launch_tile_kernel<Agg, TileMode::local_prefix>(launch.args.in.as<T>(), nullptr, nullptr, p,
                                                  launch.multiprocessors, launch.stream);
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, totals, before, CombineOp<Agg>{},
                                                    Agg::identity(), p.tiles, launch.stream));
  void* scratch = launch.workspace.reserve(scan_scratch_slot, bytes);
  SEXTANT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scratch, bytes, totals, before, CombineOp<Agg>{},
                                                    Agg::identity(), p.tiles, launch.stream));
  tile_scan_expand_kernel<Agg>
      <<<grid_for(g.windows, block_threads * 4, 1u << 20), block_threads, 0, launch.stream>>>(
          before, totals, starts, ends, out, g, p.layout.tile, p.tiles);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

template <class Agg>
void run_reduced(const Launch& launch) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  if constexpr (InvertibleAggregate<Agg>) {
    const CountWindowArgs& args = launch.args;
    const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
    Acc* out = args.out.as<Acc>();
    if (launch.plan.heads) {  // S > W with wide gaps: a window is its chunk's head, read directly
      launch_heads<Agg>(args.in.as<T>(), out, g, launch.plan.group, launch.plan.pieces,
                        launch.multiprocessors, launch.stream);
      return;
    }
    TileParams p;
    p.g = g;
    p.layout = make_tile_layout(g, sizeof(T), sizeof(Acc), /*expand=*/false, launch.plan.stages);
    p.tiles = (g.used + p.layout.tile - 1) / p.layout.tile;
    p.head_shift = head_shift(args.in.data, sizeof(T));
    const std::uint64_t tile = p.layout.tile;
    if (g.full_chunks == 0) {  // S > W, narrow gaps: a window is its chunk's head, sliced into the results
      init_crossing(out, g.chunks, g.slide, g.read_length, g.used, tile, Agg::identity(), launch.stream);
      launch_tile_kernel<Agg, TileMode::partials>(args.in.as<T>(), nullptr, out, p, launch.multiprocessors,
                                                  launch.stream);
      return;
    }
    if (launch.plan.reduced == ReducedVariant::tile_scan) {
      run_tile_scan<Agg>(launch, p, out);
      return;
    }
    const bool has_head = g.rest != 0;
    auto* prefix = static_cast<Acc*>(
        launch.workspace.reserve(partials_slot, ((g.chunks + 1) + (has_head ? g.chunks : 0)) * sizeof(Acc)));
    Acc* head = has_head ? prefix + g.chunks + 1 : nullptr;
    SEXTANT_CUDA_CHECK(cudaMemsetAsync(prefix, 0, sizeof(Acc), launch.stream));
    init_crossing(prefix + 1, g.chunks, g.slide, g.read_length, g.used, tile, Agg::identity(), launch.stream);
    if (has_head)
      init_crossing(head, g.chunks, g.slide, g.read_length, g.used, tile, Agg::identity(), launch.stream);
    launch_tile_kernel<Agg, TileMode::partials>(args.in.as<T>(), prefix + 1, head, p, launch.multiprocessors,
                                                launch.stream);
    // PC[j] = C[0] + ... + C[j-1]; C[chunks-1] is never needed.
    inclusive_scan<Agg>(prefix + 1, prefix + 1, g.chunks - 1, launch);
    expand<Agg>(prefix, head, out, g.windows, 1, g.full_chunks, g.full_chunks, launch.stream);
  } else {
    throw Error::internal("REDUCED-PREFIX launched for a non-invertible function");
  }
}

}  // namespace

void launch_direct_prefix(const Launch& launch) {
  visit_aggregate(launch.args.in.type, launch.args.kind,
                  [&](auto agg) { run_direct<decltype(agg)>(launch); });
}

void launch_reduced_prefix(const Launch& launch) {
  visit_aggregate(launch.args.in.type, launch.args.kind,
                  [&](auto agg) { run_reduced<decltype(agg)>(launch); });
}

}  // namespace sextant::window::gpu::detail
