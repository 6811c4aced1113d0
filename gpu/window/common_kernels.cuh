// Small kernels and launch helpers the count-window algorithms share: filling results with
// the identity, identity for exactly the items (windows or chunks) that cross tile
// boundaries and therefore receive atomic contributions from several blocks, and grid sizing.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "gpu/cuda_check.cuh"
#include "templates/window/count_window_policy.hpp"

namespace sextant::window::gpu::detail {

using policy::block_threads;

template <class Acc>
__global__ void fill_kernel(Acc* out, std::uint64_t count, Acc value) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = value;
}

// Items start every `stride` positions and are `length` long (windows: S and W; chunks: S and
// the chunk's read length), clipped at `used`. Sets to `value` every item that crosses one of
// the boundaries tile, 2*tile, ... < used.
template <class Acc>
__global__ void init_crossing_kernel(Acc* out, std::uint64_t items, std::uint64_t stride,
                                     std::uint64_t length, std::uint64_t used, std::uint64_t tile,
                                     std::uint64_t boundaries, Acc value) {
  for (std::uint64_t b = blockIdx.x; b < boundaries; b += gridDim.x) {
    const std::uint64_t pos = (b + 1) * tile;
    // crossing: start < pos < min(start + length, used)
    const std::uint64_t first = pos < length ? 0 : (pos - length) / stride + 1;
    const std::uint64_t last = std::min((pos - 1) / stride, items - 1);
    for (std::uint64_t k = first + threadIdx.x; k <= last; k += blockDim.x)
      if (std::min(k * stride + length, used) > pos) out[k] = value;
  }
}

inline unsigned grid_for(std::uint64_t work, unsigned per_block, unsigned cap) {
  const std::uint64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, cap));
}

template <class Acc>
void fill(Acc* out, std::uint64_t count, Acc value, cudaStream_t stream) {
  if (count == 0) return;
  fill_kernel<<<grid_for(count, block_threads * 8, 65535), block_threads, 0, stream>>>(out, count, value);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

// Identity into the items that several tiles contribute to. When most items cross (items
// longer than tiles), filling all of them is cheaper than walking the boundaries.
template <class Acc>
void init_crossing(Acc* out, std::uint64_t items, std::uint64_t stride, std::uint64_t length,
                   std::uint64_t used, std::uint64_t tile, Acc value, cudaStream_t stream) {
  if (items == 0 || used <= tile) return;
  const std::uint64_t boundaries = (used - 1) / tile;
  const std::uint64_t per_boundary = (length + stride - 1) / stride + 1;
  if (boundaries * per_boundary >= items) {
    fill(out, items, value, stream);
    return;
  }
  const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(boundaries, 65535));
  const unsigned threads = per_boundary >= 128 ? block_threads : 32;
  init_crossing_kernel<<<grid, threads, 0, stream>>>(out, items, stride, length, used, tile, boundaries,
                                                     value);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

}  // namespace sextant::window::gpu::detail
