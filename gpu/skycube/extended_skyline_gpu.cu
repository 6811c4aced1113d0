#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"
#include "gpu/skycube/extended_skyline_gpu.hpp"

namespace sextant::gpu {
namespace detail {
namespace {

constexpr unsigned full_warp = 0xffffffffu;
constexpr int block_threads = 256;

// Sum of each row in column order (the same order for every point: see the header), and its id.
__global__ void sums_kernel(const float* values, std::uint32_t n, int d, float* sums, PointId* ids) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < d; ++j) s += values[std::size_t{i} * d + j];
  sums[i] = isfinite(s) ? s : INFINITY;  // overflow: keep the sort well defined
  ids[i] = i;
}

// Rows gathered into sum order, so a warp's scan over earlier points reads consecutive rows.
__global__ void gather_kernel(const float* values, const PointId* ids, std::uint32_t n, int d,
                              float* sorted) {
  const std::size_t t = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= std::size_t{n} * d) return;
  const std::size_t i = t / d;
  sorted[t] = values[std::size_t{ids[i]} * d + t % d];
}

// One warp per point p (sorted position): is p strictly dominated by a point of sum <= sum(p)?
__global__ void dominated_kernel(const float* sorted, const float* sums, std::uint32_t n, int d,
                                 std::uint8_t* dominated) {
  const std::uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (p >= n) return;  // whole warps leave together (blockDim is a multiple of 32)
  const float key = sums[p];
  // End of the candidates: first position with a larger sum (all n when the sum overflowed).
  std::uint32_t lo = p + 1, hi = n;
  if (isfinite(key)) {
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (sums[mid] <= key)
        lo = mid + 1;
      else
        hi = mid;
    }
  } else {
    lo = n;
  }
  const std::uint32_t end = lo;
  const float* row_p = sorted + std::size_t{p} * d;
  for (std::uint32_t base = 0; base < end; base += 32) {  // warp-uniform
    const std::uint32_t q = base + static_cast<std::uint32_t>(lane);
    bool strict = q < end && q != p;
    if (strict) {
      const float* row_q = sorted + std::size_t{q} * d;
      for (int j = 0; j < d && strict; ++j) strict = row_q[j] < row_p[j];
    }
    if (__any_sync(full_warp, strict)) {
      if (lane == 0) dominated[p] = 1;
      return;
    }
  }
  if (lane == 0) dominated[p] = 0;
}

}  // namespace
}  // namespace detail

std::vector<PointId> ExtendedSkylineGpu::extended_skyline(const Dataset& data) {
  const int devices = device_count();
  if (gpu_ordinal < 0 || gpu_ordinal >= devices)
    throw Error::argument("gpu_ordinal", std::to_string(gpu_ordinal), "0.." + std::to_string(devices - 1),
                          "no such CUDA device");
  const std::size_t n = data.size();
  const int d = data.dims();
  if (n == 0) return {};
  if (n > 0xffffffffu) throw Error::unsupported("gpu-extended-skyline: more than 2^32 - 1 points");
  const auto n32 = static_cast<std::uint32_t>(n);
  ScopedDevice scope(gpu_ordinal);

  cudaStream_t stream = nullptr;
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};

  const std::size_t floats = n * static_cast<std::size_t>(d);
  DeviceBuffer<float> values(floats), sorted(floats), sums(n);
  DeviceBuffer<PointId> ids(n);
  DeviceBuffer<std::uint8_t> dominated(n);
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(values.data(), data.values().data(), floats * sizeof(float),
                                     cudaMemcpyHostToDevice, stream));
  const auto blocks = [](std::size_t work) {
    return static_cast<unsigned>((work + detail::block_threads - 1) / detail::block_threads);
  };
  detail::sums_kernel<<<blocks(n), detail::block_threads, 0, stream>>>(values.data(), n32, d, sums.data(),
                                                                       ids.data());
  SEXTANT_CUDA_CHECK_LAUNCH();
  try {
    thrust::sort_by_key(thrust::cuda::par.on(stream), sums.data(), sums.data() + n, ids.data());
  } catch (const std::exception& e) {  // thrust::system_error, std::bad_alloc: make them ours
    throw Error::unsupported(std::string("gpu-extended-skyline: sort failed: ") + e.what());
  }
  SEXTANT_CUDA_CHECK_LAUNCH();
  detail::gather_kernel<<<blocks(floats), detail::block_threads, 0, stream>>>(values.data(), ids.data(), n32,
                                                                              d, sorted.data());
  SEXTANT_CUDA_CHECK_LAUNCH();
  detail::dominated_kernel<<<blocks(n * 32), detail::block_threads, 0, stream>>>(sorted.data(), sums.data(),
                                                                                 n32, d, dominated.data());
  SEXTANT_CUDA_CHECK_LAUNCH();

  std::vector<std::uint8_t> flags(n);
  std::vector<PointId> order(n);
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(flags.data(), dominated.data(), n, cudaMemcpyDeviceToHost, stream));
  SEXTANT_CUDA_CHECK(
      cudaMemcpyAsync(order.data(), ids.data(), n * sizeof(PointId), cudaMemcpyDeviceToHost, stream));
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream));

  // Ascending ids without a sort: mark, then sweep.
  std::vector<std::uint8_t> keep(n, 0);
  for (std::size_t k = 0; k < n; ++k)
    if (flags[k] == 0) keep[order[k]] = 1;
  std::vector<PointId> out;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i] != 0) out.push_back(static_cast<PointId>(i));
  return out;
}

}  // namespace sextant::gpu
