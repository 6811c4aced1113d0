// The CUDA executor's non-template half: streams and uploads, the per-tuple pass, and the CUB
// calls that do not depend on the aggregate (scans, radix sorts), compiled once. Also the
// page-locked allocations of the public header.
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <string>
#include <vector>

#include "gpu/window/stream_gpu_exec.cuh"
#include "gpu/window/stream_window_gpu.hpp"

namespace sextant::gpu {

double pinned_copy_rate(int device, std::size_t bytes, int repeats) {
  int previous = 0;
  SEXTANT_CUDA_CHECK(cudaGetDevice(&previous));
  SEXTANT_CUDA_CHECK(cudaSetDevice(device));
  void* host = allocate_pinned(bytes);
  void* dev = nullptr;
  cudaEvent_t begin = nullptr, end = nullptr;
  std::vector<float> ms;
  const auto cleanup = [&] {
    if (begin != nullptr) cudaEventDestroy(begin);
    if (end != nullptr) cudaEventDestroy(end);
    if (dev != nullptr) cudaFree(dev);
    free_pinned(host);
    cudaSetDevice(previous);
  };
  try {
    SEXTANT_CUDA_CHECK(cudaMalloc(&dev, bytes));
    std::memset(host, 1, bytes);
    SEXTANT_CUDA_CHECK(cudaEventCreate(&begin));
    SEXTANT_CUDA_CHECK(cudaEventCreate(&end));
    for (int i = 0; i <= repeats; ++i) {  // the first one warms up
      SEXTANT_CUDA_CHECK(cudaEventRecord(begin));
      SEXTANT_CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice));
      SEXTANT_CUDA_CHECK(cudaEventRecord(end));
      SEXTANT_CUDA_CHECK(cudaEventSynchronize(end));
      float t = 0;
      SEXTANT_CUDA_CHECK(cudaEventElapsedTime(&t, begin, end));
      if (i > 0) ms.push_back(t);
    }
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
  std::sort(ms.begin(), ms.end());
  return static_cast<double>(bytes) / (ms[ms.size() / 2] * 1e-3);
}

}  // namespace sextant::gpu

namespace sextant::window::detail::stream_gpu {

namespace {

struct MaxOp {
  __device__ __forceinline__ i64 operator()(i64 a, i64 b) const { return a < b ? b : a; }
  __device__ __forceinline__ u32 operator()(u32 a, u32 b) const { return a < b ? b : a; }
};

// The per-tuple pass with its statistics reduced per block in shared memory, then once per
// block in global memory.
__global__ void __launch_bounds__(block_threads) prepare_kernel(PrepareArgs a, u64 n, PrepareStats* out) {
  __shared__ u64 first_negative, first_above, first_far, late, ignored, max_key;
  __shared__ long long max_wm;
  __shared__ unsigned flags;
  if (threadIdx.x == 0) {
    first_negative = no_index;
    first_above = no_index;
    first_far = no_index;
    late = 0;
    ignored = 0;
    max_key = 0;
    max_wm = no_wm;
    flags = 0;
  }
  __syncthreads();
  PrepareStats s;
  const u64 stride = u64{gridDim.x} * blockDim.x;
  for (u64 i = u64{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) prepare_tuple(a, i, s);
  if (s.first_negative != no_index) atomicMin(&first_negative, s.first_negative);
  if (s.first_above != no_index) atomicMin(&first_above, s.first_above);
  if (s.first_far != no_index) atomicMin(&first_far, s.first_far);
  if (s.late != 0) atomicAdd(&late, s.late);
  if (s.ignored != 0) atomicAdd(&ignored, s.ignored);
  if (s.max_key != 0) atomicMax(&max_key, s.max_key);
  if (s.max_wm != no_wm) atomicMax(&max_wm, static_cast<long long>(s.max_wm));
  if (s.overflow | s.accepted) atomicOr(&flags, s.overflow | (s.accepted << 1));
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (first_negative != no_index) atomicMin(&out->first_negative, first_negative);
  if (first_above != no_index) atomicMin(&out->first_above, first_above);
  if (first_far != no_index) atomicMin(&out->first_far, first_far);
  if (late != 0) atomicAdd(&out->late, late);
  if (ignored != 0) atomicAdd(&out->ignored, ignored);
  if (max_key != 0) atomicMax(&out->max_key, max_key);
  if (max_wm != no_wm) atomicMax(reinterpret_cast<long long*>(&out->max_wm), max_wm);
  if (flags & 1u) atomicOr(&out->overflow, 1u);
  if (flags & 2u) atomicOr(&out->accepted, 1u);
}

bool is_device_accessible(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type != cudaMemoryTypeUnregistered;
}

}  // namespace

std::uint32_t DeviceExec::checked_items(std::size_t n) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw Error::internal("GPU stream windows: more than 2^32 items in one device pass");
  return static_cast<std::uint32_t>(n);
}

DeviceExec::DeviceExec(int device) : device_(device) {
  SEXTANT_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
  mailbox_ = static_cast<unsigned char*>(::sextant::gpu::allocate_pinned(mailbox_bytes));
  for (int i = 0; i < 2; ++i) {
    SEXTANT_CUDA_CHECK(cudaEventCreateWithFlags(&copied_[i], cudaEventDisableTiming));
    SEXTANT_CUDA_CHECK(cudaEventCreateWithFlags(&consumed_[i], cudaEventDisableTiming));
  }
}

DeviceExec::~DeviceExec() {
  // No throw from a destructor: errors here have been reported by the call that caused them.
  if (copy_ != nullptr) cudaStreamSynchronize(copy_);
  if (compute_ != nullptr) cudaStreamSynchronize(compute_);
  for (Slot& s : slots_)
    if (s.staging != nullptr) cudaFreeHost(s.staging);
  ::sextant::gpu::free_pinned(mailbox_);
  for (int i = 0; i < 2; ++i) {
    if (copied_[i] != nullptr) cudaEventDestroy(copied_[i]);
    if (consumed_[i] != nullptr) cudaEventDestroy(consumed_[i]);
  }
  if (copy_ != nullptr) cudaStreamDestroy(copy_);
  if (compute_ != nullptr) cudaStreamDestroy(compute_);
}

void DeviceExec::sync() {
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

void DeviceExec::drain() {
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(copy_));
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

// Columns already in page-locked (or device) memory are copied directly; the others through the
// slot's staging, whose previous copy has completed (upload waits on it first).
const void* DeviceExec::put(Slot& s, const void* column, bool direct, std::size_t element, std::size_t first,
                            std::size_t n, void* device, std::size_t& staged) {
  const auto* src = static_cast<const unsigned char*>(column) + first * element;
  const std::size_t bytes = n * element;
  if (direct) {
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(device, src, bytes, cudaMemcpyDefault, copy_));
  } else {
    std::memcpy(s.staging + staged, src, bytes);
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(device, s.staging + staged, bytes, cudaMemcpyHostToDevice, copy_));
    staged += bytes;
  }
  return device;
}

ChunkColumns DeviceExec::upload(const HostColumns& b, std::size_t first, std::size_t n, int slot) {
  Slot& s = slots_[slot];
  // The chunk that used this slot before is done (device buffers) and its copy too (staging).
  SEXTANT_CUDA_CHECK(cudaStreamWaitEvent(copy_, consumed_[slot], 0));
  SEXTANT_CUDA_CHECK(cudaEventSynchronize(copied_[slot]));
  // Each column's memory is asked about once per upload (a driver call each).
  const bool direct[4] = {
      b.keys == nullptr || is_device_accessible(b.keys), b.ts == nullptr || is_device_accessible(b.ts),
      b.values == nullptr || is_device_accessible(b.values), b.wms == nullptr || is_device_accessible(b.wms)};
  const std::size_t pageable = (direct[0] ? 0 : n * sizeof(u32)) + (direct[1] ? 0 : n * sizeof(i64)) +
                               (direct[2] ? 0 : n * b.value_bytes) + (direct[3] ? 0 : n * sizeof(i64));
  if (pageable > s.staging_bytes) {
    if (s.staging != nullptr) SEXTANT_CUDA_CHECK(cudaFreeHost(s.staging));
    s.staging = nullptr;
    s.staging_bytes = 0;
    s.staging = static_cast<unsigned char*>(::sextant::gpu::allocate_pinned(pageable));
    s.staging_bytes = pageable;
  }
  ChunkColumns c;
  c.n = n;
  std::size_t staged = 0;
  if (b.keys != nullptr) {
    s.keys.reserve(*this, n);
    c.keys = static_cast<const u32*>(put(s, b.keys, direct[0], sizeof(u32), first, n, s.keys.data(), staged));
  }
  if (b.ts != nullptr) {
    s.ts.reserve(*this, n);
    c.ts = static_cast<const i64*>(put(s, b.ts, direct[1], sizeof(i64), first, n, s.ts.data(), staged));
  }
  if (b.values != nullptr) {
    s.values.reserve(*this, n * b.value_bytes);
    c.values =
        const_cast<void*>(put(s, b.values, direct[2], b.value_bytes, first, n, s.values.data(), staged));
  }
  if (b.wms != nullptr) {
    s.wms.reserve(*this, n);
    c.wms = static_cast<const i64*>(put(s, b.wms, direct[3], sizeof(i64), first, n, s.wms.data(), staged));
  }
  SEXTANT_CUDA_CHECK(cudaEventRecord(copied_[slot], copy_));
  return c;
}

void DeviceExec::begin_chunk(int slot) {
  SEXTANT_CUDA_CHECK(cudaStreamWaitEvent(compute_, copied_[slot], 0));
}

void DeviceExec::end_chunk(int slot) {
  SEXTANT_CUDA_CHECK(cudaEventRecord(consumed_[slot], compute_));
}

void DeviceExec::prepare(const PrepareArgs& args, std::size_t n, PrepareStats* stats) {
  if (n == 0) return;
  const u64 blocks = std::min<u64>((n + block_threads - 1) / block_threads, u64{8} * multiprocessors_);
  prepare_kernel<<<static_cast<unsigned>(blocks), block_threads, 0, compute_>>>(args, n, stats);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

void DeviceExec::max_scan(const i64* in, i64* out, std::size_t n, i64 init) {
  const auto items = checked_items(n);
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, MaxOp{}, init, items, compute_));
  temp_.reserve(*this, bytes);
  SEXTANT_CUDA_CHECK(
      cub::DeviceScan::ExclusiveScan(temp_.data(), bytes, in, out, MaxOp{}, init, items, compute_));
}

namespace {

// Radix sort of `keys` over bits [0, end_bit) carrying raw values of `Raw` (void: keys only).
template <class K, class Raw>
int radix_sort(DeviceExec::Buffer<unsigned char>& temp, DeviceExec& exec, K* keys[2], void* values[2],
               std::uint32_t n, int end_bit, cudaStream_t stream) {
  cub::DoubleBuffer<K> k(keys[0], keys[1]);
  std::size_t bytes = 0;
  if constexpr (std::is_void_v<Raw>) {
    SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, k, n, 0, end_bit, stream));
    temp.reserve(exec, bytes);
    SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, k, n, 0, end_bit, stream));
  } else {
    cub::DoubleBuffer<Raw> v(static_cast<Raw*>(values[0]), static_cast<Raw*>(values[1]));
    SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, n, 0, end_bit, stream));
    temp.reserve(exec, bytes);
    SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, k, v, n, 0, end_bit, stream));
  }
  return k.selector;
}

template <class K>
int sort_any(DeviceExec::Buffer<unsigned char>& temp, DeviceExec& exec, K* keys[2], void* values[2],
             std::size_t value_bytes, std::uint32_t n, int end_bit, cudaStream_t stream) {
  switch (value_bytes) {
    case 0:
      return radix_sort<K, void>(temp, exec, keys, values, n, end_bit, stream);
    case 4:
      return radix_sort<K, std::uint32_t>(temp, exec, keys, values, n, end_bit, stream);
    case 8:
      return radix_sort<K, unsigned long long>(temp, exec, keys, values, n, end_bit, stream);
    default:
      throw Error::internal("GPU stream windows: values of " + std::to_string(value_bytes) + " bytes");
  }
}

}  // namespace

int DeviceExec::sort_pairs(u64* keys[2], void* values[2], std::size_t value_bytes, std::size_t n,
                           int end_bit) {
  return sort_any<u64>(temp_, *this, keys, values, value_bytes, checked_items(n), end_bit, compute_);
}

int DeviceExec::sort_pairs(u32* keys[2], void* values[2], std::size_t value_bytes, std::size_t n,
                           int end_bit) {
  return sort_any<u32>(temp_, *this, keys, values, value_bytes, checked_items(n), end_bit, compute_);
}

void DeviceExec::inclusive_sum(const u32* in, u32* out, std::size_t n) {
  const auto items = checked_items(n);
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, items, compute_));
  temp_.reserve(*this, bytes);
  SEXTANT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.data(), bytes, in, out, items, compute_));
}

void DeviceExec::inclusive_sum(const u64* in, u64* out, std::size_t n) {
  const auto items = checked_items(n);
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, items, compute_));
  temp_.reserve(*this, bytes);
  SEXTANT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.data(), bytes, in, out, items, compute_));
}

void DeviceExec::segment_starts(const u32* slots, u32* out, std::size_t n) {
  const auto items = checked_items(n);
  const auto heads = thrust::make_transform_iterator(thrust::counting_iterator<u64>(0), SegmentHead{slots});
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, heads, out, MaxOp{}, items, compute_));
  temp_.reserve(*this, bytes);
  SEXTANT_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(temp_.data(), bytes, heads, out, MaxOp{}, items, compute_));
}

}  // namespace sextant::window::detail::stream_gpu
