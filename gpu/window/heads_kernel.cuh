// COOP-OPT when S > W leaves gaps of 64 bytes or more: each window is one contiguous run read
// straight from global memory by a group of G lanes (16-byte loads, four in flight per lane),
// reduced with shuffles and stored. Only the windows' own sectors are fetched. Long windows
// that are too few to fill the device are cut into `pieces` parts read by separate groups and
// combined atomically (the results set to the identity first). Also REDUCED-PREFIX's slicing
// for such windows (there is nothing to scan).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "gpu/window/common_kernels.cuh"
#include "gpu/window/device_atomics.cuh"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/chunk_geometry.hpp"

namespace sextant::window::gpu::detail {

template <class Agg>
__global__ void __launch_bounds__(block_threads)
    heads_kernel(const typename Agg::Input* __restrict__ in, typename Agg::Acc* __restrict__ out,
                 ChunkGeometry g, std::uint32_t group, std::uint32_t pieces, std::uint64_t piece_length) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  constexpr std::uint32_t per_vector = 16 / sizeof(T);
  constexpr std::uint32_t unroll = 4;
  const std::uint32_t lane = threadIdx.x & 31;
  const std::uint32_t g_lane = lane & (group - 1);
  const unsigned mask = group == 32 ? 0xffffffffu : ((1u << group) - 1u) << (lane & ~(group - 1));
  const std::uint64_t per_block = block_threads / group;
  const std::uint64_t groups = std::uint64_t{gridDim.x} * per_block;
  const std::uint64_t items = g.windows * pieces;
  for (std::uint64_t item = std::uint64_t{blockIdx.x} * per_block + threadIdx.x / group; item < items;
       item += groups) {
    const std::uint64_t k = item / pieces, m = item - k * pieces;
    const std::uint64_t begin = m * piece_length;
    const std::uint64_t length = min(piece_length, g.length - begin);
    const T* first = in + k * g.slide + begin;
    const T* last = first + length;
    const auto pa = reinterpret_cast<std::uintptr_t>(first), pb = reinterpret_cast<std::uintptr_t>(last);
    const std::uintptr_t va = (pa + 15) & ~std::uintptr_t{15}, vb = pb & ~std::uintptr_t{15};
    Acc acc = Agg::identity();
    std::uint64_t scalar_begin = 0, scalar_end = length, tail_begin = length;
    if (va < vb) {
      const auto* vec = reinterpret_cast<const uint4*>(va);
      const std::uint64_t vectors = (vb - va) / 16;
      for (std::uint64_t v = g_lane; v < vectors; v += std::uint64_t{group} * unroll) {
        uint4 x[unroll];
#pragma unroll
        for (std::uint32_t u = 0; u < unroll; ++u)
          if (v + u * group < vectors) x[u] = __ldcs(vec + v + u * group);
#pragma unroll
        for (std::uint32_t u = 0; u < unroll; ++u)
          if (v + u * group < vectors) {
            T values[per_vector];
            std::memcpy(values, &x[u], 16);
#pragma unroll
            for (std::uint32_t e = 0; e < per_vector; ++e) acc = Agg::combine(acc, Agg::lift(values[e]));
          }
      }
      scalar_end = (va - pa) / sizeof(T);  // the head before the first vector
      tail_begin = (vb - pa) / sizeof(T);  // the tail after the last one
    }
    for (std::uint64_t i = scalar_begin + g_lane; i < scalar_end; i += group)
      acc = Agg::combine(acc, Agg::lift(first[i]));
    if (tail_begin < length)
      for (std::uint64_t i = tail_begin + g_lane; i < length; i += group)
        acc = Agg::combine(acc, Agg::lift(first[i]));
    for (std::uint32_t off = group >> 1; off > 0; off >>= 1)
      acc = Agg::combine(acc, __shfl_xor_sync(mask, acc, off));
    if (g_lane == 0) {
      if (pieces == 1)
        out[k] = acc;
      else
        atomic_combine<Agg>(out + k, acc);
    }
  }
}

template <class Agg>
void launch_heads(const typename Agg::Input* in, typename Agg::Acc* out, const ChunkGeometry& g,
                  std::uint32_t group, std::uint32_t pieces, int multiprocessors, cudaStream_t stream) {
  const std::uint64_t piece_length = (g.length + pieces - 1) / pieces;
  if (pieces > 1) fill(out, g.windows, Agg::identity(), stream);
  const std::uint64_t threads = g.windows * pieces * group;
  const unsigned grid = grid_for(threads, block_threads, static_cast<unsigned>(multiprocessors) * 8);
  heads_kernel<Agg><<<grid, block_threads, 0, stream>>>(in, out, g, group, pieces, piece_length);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

}  // namespace sextant::window::gpu::detail
