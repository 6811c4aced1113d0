// Calibration of the selector's cost model on the device in use: properties from the runtime,
// and the rates the algorithms are bound by, measured with small kernels (streaming read and
// write, scattered and GBL-like global atomics, shared-memory atomics, launch overhead).
// About 0.1 s, once per device and process.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"
#include "gpu/window/count_window_gpu.hpp"

namespace sextant::window::gpu {

namespace {

__global__ void read_kernel(const uint4* __restrict__ p, std::uint64_t count, unsigned* sink) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  unsigned acc = 0;
  std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < count; i += 4 * stride) {
    const uint4 a = __ldg(p + i), b = __ldg(p + i + stride), c = __ldg(p + i + 2 * stride),
                d = __ldg(p + i + 3 * stride);
    acc ^= a.x ^ b.y ^ c.z ^ d.w;
  }
  for (; i < count; i += stride) acc ^= __ldg(p + i).x;
  if (acc == 0x9E3779B9u) *sink = acc;  // keeps the loads alive
}

__global__ void write_kernel(uint4* p, std::uint64_t count) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride)
    p[i] = make_uint4(1, 2, 3, static_cast<unsigned>(i));
}

// COOP-OPT's edge windows: a warp updates 32 consecutive results, each result a few times.
__global__ void coalesced_atomics_kernel(unsigned long long* counters, std::uint64_t mask,
                                         std::uint64_t updates) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < updates; i += stride)
    atomicAdd(counters + (i & mask), 1ull);
}

// The GBL pattern for S = 4, W = 32: each value updates 8 windows, circularly by lane.
__global__ void gbl_pattern_kernel(unsigned long long* out, std::uint64_t values) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < values; i += stride) {
    const std::uint64_t lo = i / 4;
    for (unsigned u = 0; u < 8; ++u) atomicAdd(out + lo + ((lane + u) & 7), 1ull);
  }
}

__global__ void shared_atomics_kernel(unsigned long long* sink, int iterations) {
  __shared__ unsigned long long slots[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) slots[i] = 0;
  __syncthreads();
  for (int it = 0; it < iterations; ++it) atomicAdd(&slots[(threadIdx.x * 33u + it * 97u) & 2047u], 1ull);
  __syncthreads();
  if (threadIdx.x == 0 && slots[0] == 0x9E3779B9ull) *sink = slots[1];
}

__global__ void empty_kernel() {}

// Median seconds of `repeats` runs of f (after one warm-up run).
template <class F>
double time_median(F&& f, int repeats = 3) {
  cudaEvent_t start, stop;
  SEXTANT_CUDA_CHECK(cudaEventCreate(&start));
  SEXTANT_CUDA_CHECK(cudaEventCreate(&stop));
  f();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    SEXTANT_CUDA_CHECK(cudaEventRecord(start));
    f();
    SEXTANT_CUDA_CHECK(cudaEventRecord(stop));
    SEXTANT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SEXTANT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

DeviceProfile measure(int ordinal) {
  const ::sextant::gpu::GpuInfo info = ::sextant::gpu::device_info(ordinal);
  ::sextant::gpu::ScopedDevice scope(ordinal);
  DeviceProfile d;
  d.name = info.name;
  d.multiprocessors = info.multiprocessors;
  d.shared_per_block = info.shared_memory_per_block_optin;
  int per_sm = 0, clock_khz = 0;
  SEXTANT_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal));
  SEXTANT_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal));
  d.shared_per_sm = static_cast<std::uint64_t>(per_sm);
  d.l2_bytes = info.l2_cache_bytes;
  d.instruction_rate = static_cast<double>(info.multiprocessors) * 128.0 * clock_khz * 1e3;
  std::size_t free_bytes = 0, total_bytes = 0;
  SEXTANT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  d.free_memory = free_bytes;

  const std::size_t bytes =
      std::clamp<std::size_t>(free_bytes / 4 / (1 << 20) * (1 << 20), 16 << 20, std::size_t{1} << 30);
  ::sextant::gpu::DeviceBuffer<uint4> buffer(bytes / sizeof(uint4));
  ::sextant::gpu::DeviceBuffer<unsigned> sink(1);
  const unsigned sms = static_cast<unsigned>(info.multiprocessors);
  const std::uint64_t vectors = buffer.size();
  SEXTANT_CUDA_CHECK(cudaMemset(buffer.data(), 1, bytes));
  d.write_bandwidth = static_cast<double>(bytes) / time_median([&] {
                        write_kernel<<<sms * 8, 256>>>(buffer.data(), vectors);
                        SEXTANT_CUDA_CHECK_LAUNCH();
                      });
  d.read_bandwidth = static_cast<double>(bytes) / time_median([&] {
                       read_kernel<<<sms * 8, 256>>>(buffer.data(), vectors, sink.data());
                       SEXTANT_CUDA_CHECK_LAUNCH();
                     });

  auto* counters = reinterpret_cast<unsigned long long*>(buffer.data());
  const std::uint64_t slots = std::min<std::uint64_t>(bytes / 8, std::uint64_t{1} << 21);  // power of two
  const std::uint64_t updates = std::uint64_t{1} << 25;
  d.global_atomic_rate = static_cast<double>(updates) / time_median([&] {
                           coalesced_atomics_kernel<<<sms * 8, 256>>>(counters, slots - 1, updates);
                           SEXTANT_CUDA_CHECK_LAUNCH();
                         });
  const std::uint64_t values = std::min<std::uint64_t>(std::uint64_t{1} << 23, (bytes / 8 - 16) * 4);
  d.contended_atomic_rate = static_cast<double>(values * 8) / time_median([&] {
                              gbl_pattern_kernel<<<sms * 8, 256>>>(counters, values);
                              SEXTANT_CUDA_CHECK_LAUNCH();
                            });
  const int iterations = 256;
  const unsigned blocks = sms * 8;
  d.shared_atomic_rate = static_cast<double>(blocks) * 256 * iterations / time_median([&] {
                           shared_atomics_kernel<<<blocks, 256>>>(
                               reinterpret_cast<unsigned long long*>(sink.data()), iterations);
                           SEXTANT_CUDA_CHECK_LAUNCH();
                         });
  constexpr int launches = 200;
  d.launch_seconds = time_median([&] {
                       for (int i = 0; i < launches; ++i) empty_kernel<<<1, 32>>>();
                       SEXTANT_CUDA_CHECK_LAUNCH();
                     }) /
                     launches;
  SEXTANT_CUDA_CHECK(cudaDeviceSynchronize());
  return d;
}

}  // namespace

const DeviceProfile& device_profile(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceProfile>> profiles;
  std::lock_guard lock(mutex);
  auto& slot = profiles[ordinal];
  if (!slot) slot = std::make_unique<DeviceProfile>(measure(ordinal));
  return *slot;
}

}  // namespace sextant::window::gpu
