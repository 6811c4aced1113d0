// BLOCK-SCAN: count windows for any aggregate, with neither a device atomic nor an inverse
// (argmin, argmax, first, last). Van Herk / Gil-Werman over blocks of W values: P[i] combines
// the values from the start of i's block to i, Q[i] those from i to the end of its block. Window
// k starts at s = kS and ends at e = s + W - 1, which lies in the next block unless s starts a
// block, so window k = Q[s] (+ P[e] when s is not a multiple of W). Two segmented scans (CUB's
// scan by key, the suffix one over reversed iterators) and one gather: O(n) whatever W / S.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cub/device/device_scan.cuh>

#include "gpu/window/common_kernels.cuh"
#include "gpu/window/launch.cuh"
#include "templates/window/aggregate.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/chunk_geometry.hpp"

namespace sextant::window::gpu::detail {

namespace {

template <class Agg>
struct CombineOp {
  __host__ __device__ typename Agg::Acc operator()(typename Agg::Acc a, typename Agg::Acc b) const {
    return Agg::combine(a, b);
  }
};

// Position i of the scan (forward) or used - 1 - i (backward).
template <bool Backward>
struct PositionOf {
  std::uint64_t used;
  __host__ __device__ std::uint64_t operator()(std::uint64_t i) const { return Backward ? used - 1 - i : i; }
};

template <bool Backward>
struct BlockOf {
  PositionOf<Backward> position;
  std::uint64_t length;
  __host__ __device__ std::uint64_t operator()(std::uint64_t i) const { return position(i) / length; }
};

template <class Agg, bool Backward>
struct LiftAt {
  const typename Agg::Input* in;
  PositionOf<Backward> position;
  __host__ __device__ typename Agg::Acc operator()(std::uint64_t i) const {
    const std::uint64_t at = position(i);
    return lift<Agg>(in[at], TupleContext{static_cast<std::int64_t>(at)});
  }
};

template <class Agg, bool Backward>
void segmented_scan(const Launch& launch, const typename Agg::Input* in, std::uint64_t used,
                    std::uint64_t length, typename Agg::Acc* out, void* scratch, std::size_t& bytes) {
  const thrust::counting_iterator<std::uint64_t> items(0);
  const auto keys = thrust::make_transform_iterator(items, BlockOf<Backward>{{used}, length});
  const auto values = thrust::make_transform_iterator(items, LiftAt<Agg, Backward>{in, {used}});
  SEXTANT_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(scratch, bytes, keys, values, out, CombineOp<Agg>{},
                                                         used, ::cuda::std::equal_to<>{}, launch.stream));
}

// out[k] (and positions[k] for the positional aggregates) from Q (stored reversed) and P.
template <class Agg, class Out>
__global__ void __launch_bounds__(block_threads)
    block_scan_expand_kernel(const typename Agg::Acc* __restrict__ prefix,
                             const typename Agg::Acc* __restrict__ suffix_reversed, Out* __restrict__ out,
                             std::int64_t* __restrict__ positions, std::uint64_t windows, std::uint64_t slide,
                             std::uint64_t length, std::uint64_t used) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < windows; k += step) {
    const std::uint64_t s = k * slide;
    typename Agg::Acc acc = suffix_reversed[used - 1 - s];
    if (s % length != 0) acc = Agg::combine(acc, prefix[s + length - 1]);
    if constexpr (SelectingAggregate<Agg>) {
      out[k] = acc.value;
      positions[k] = acc.at;
    } else {
      out[k] = acc;
    }
  }
}

template <class Agg>
void run_block_scan(const Launch& launch) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  using Out = std::conditional_t<SelectingAggregate<Agg>, T, Acc>;
  const CountWindowArgs& args = launch.args;
  const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
  const std::uint64_t used = g.used, length = g.length;
  auto* prefix = static_cast<Acc*>(launch.workspace.reserve(partials_slot, 2 * used * sizeof(Acc)));
  Acc* suffix_reversed = prefix + used;
  const T* in = args.in.as<T>();
  std::size_t forward_bytes = 0, backward_bytes = 0;
  segmented_scan<Agg, false>(launch, in, used, length, prefix, nullptr, forward_bytes);
  segmented_scan<Agg, true>(launch, in, used, length, suffix_reversed, nullptr, backward_bytes);
  std::size_t bytes = std::max(forward_bytes, backward_bytes);
  void* scratch = launch.workspace.reserve(scan_scratch_slot, bytes);
  segmented_scan<Agg, false>(launch, in, used, length, prefix, scratch, bytes);
  bytes = std::max(forward_bytes, backward_bytes);
  segmented_scan<Agg, true>(launch, in, used, length, suffix_reversed, scratch, bytes);
  block_scan_expand_kernel<Agg, Out>
      <<<grid_for(g.windows, block_threads * 4, 1u << 20), block_threads, 0, launch.stream>>>(
          prefix, suffix_reversed, args.out.as<Out>(), args.positions, g.windows, g.slide, length, used);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_block_scan(const Launch& launch) {
  visit_aggregate(launch.args.in.type, launch.args.kind,
                  [&](auto agg) { run_block_scan<decltype(agg)>(launch); });
}

}  // namespace sextant::window::gpu::detail
