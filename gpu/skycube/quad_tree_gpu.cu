#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <utility>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/skycube/cuboid_gpu.hpp"
#include "gpu/skycube/quad_tree_gpu.hpp"
#include "templates/skycube/quad_tree_steps.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::gpu {
namespace {

using skycube::QuadTree;
using skycube::QuadTreeLeaves;

constexpr int block = skycube::policy::Gpu::quad_tree_block_threads;

unsigned grid_for(std::size_t items) {
  return static_cast<unsigned>(std::min<std::size_t>((items + block - 1) / block, 65535u * 8u));
}

// columns[j * s + i] = value of point ids[i] in column j: each column contiguous for its sort.
__global__ void gather_columns(const float* values, int d, const PointId* ids, std::uint32_t s,
                               float* columns) {
  const std::size_t total = static_cast<std::size_t>(s) * d;
  for (std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; k < total;
       k += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t i = k / d;
    const int j = static_cast<int>(k % d);
    columns[static_cast<std::size_t>(j) * s + i] = values[static_cast<std::size_t>(ids[i]) * d + j];
  }
}

// One thread per column: its seven pivots from the sorted column.
__global__ void column_pivots(const float* sorted, std::uint32_t s, int d, float* pivots) {
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j < d) skycube::detail::column_pivots(sorted + static_cast<std::size_t>(j) * s, s, pivots + 7 * j);
}

// One thread per point: its leaf key, and its input position as the sort's value.
__global__ void path_keys(const float* values, int d, const PointId* ids, std::uint32_t s,
                          const float* pivots, std::uint64_t* keys, std::uint32_t* positions) {
  __shared__ float p[7 * max_skycube_columns];
  for (int t = static_cast<int>(threadIdx.x); t < 7 * d; t += static_cast<int>(blockDim.x)) p[t] = pivots[t];
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < s;
       i += std::size_t{gridDim.x} * blockDim.x) {
    keys[i] = skycube::detail::path_key(p, d, values + static_cast<std::size_t>(ids[i]) * d);
    positions[i] = static_cast<std::uint32_t>(i);
  }
}

// One thread per (leaf, padded column): the leaf's row; column 0 also writes its id and masks.
__global__ void leaves(const float* values, int d, int stride, const PointId* ids, std::uint32_t s,
                       const std::uint64_t* keys, const std::uint32_t* positions, PointId* leaf_ids,
                       Mask* median, Mask* quartile, Mask* octile, float* rows) {
  const std::size_t total = static_cast<std::size_t>(s) * stride;
  const Mask low = full_mask(d);
  for (std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; k < total;
       k += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t i = k / stride;
    const int j = static_cast<int>(k % stride);
    const PointId id = ids[positions[i]];
    rows[k] = j < d ? values[static_cast<std::size_t>(id) * d + j] : 0.0f;
    if (j == 0) {
      leaf_ids[i] = id;
      median[i] = static_cast<Mask>(keys[i] >> (2 * d)) & low;
      quartile[i] = static_cast<Mask>(keys[i] >> d) & low;
      octile[i] = static_cast<Mask>(keys[i]) & low;
    }
  }
}

// A stream and the four events that split the call's device time (RAII: released on any exit).
class Timeline {
 public:
  Timeline() {
    SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_) SEXTANT_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Timeline() {
    for (cudaEvent_t e : events_)
      if (e != nullptr) cudaEventDestroy(e);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  cudaStream_t stream() const noexcept { return stream_; }
  void mark(int k) { SEXTANT_CUDA_CHECK(cudaEventRecord(events_[k], stream_)); }
  double seconds(int from, int to) const {
    float ms = 0;
    SEXTANT_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms * 1e-3;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[4] = {nullptr, nullptr, nullptr, nullptr};
};

template <class T>
void upload(DeviceBuffer<T>& to, const T* from, std::size_t count, cudaStream_t stream) {
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(to.data(), from, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}
template <class T>
void download(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
}

}  // namespace

QuadTreeGpu::QuadTreeGpu(int gpu_ordinal) : ordinal_(gpu_ordinal) {
  check_gpu_ordinal(gpu_ordinal);
}

QuadTree QuadTreeGpu::quad_tree(const Dataset& data, std::span<const PointId> points) {
  QuadTree::check_points(data, points);
  if (points.empty()) return QuadTree(data, points);
  check_gpu_ordinal(ordinal_);
  ScopedDevice scope(ordinal_);

  // Ascending ids in: the stable key sort then orders equal paths by id, as the leaf order asks.
  std::vector<PointId> ascending;
  if (!std::is_sorted(points.begin(), points.end())) {
    ascending.assign(points.begin(), points.end());
    std::sort(ascending.begin(), ascending.end());
    points = ascending;
  }
  const int d = data.dims();
  const int stride = (d + 7) / 8 * 8;
  const auto s = static_cast<std::uint32_t>(points.size());
  const std::size_t cells = static_cast<std::size_t>(s) * d;
  const std::size_t values_count = data.size() * static_cast<std::size_t>(d);

  Timeline timeline;
  const cudaStream_t stream = timeline.stream();
  DeviceBuffer<float> values(values_count);
  DeviceBuffer<PointId> ids(s);
  DeviceBuffer<float> columns(cells);
  DeviceBuffer<float> sorted(cells);
  DeviceBuffer<float> pivots(static_cast<std::size_t>(d) * 7);
  DeviceBuffer<std::uint64_t> keys[2] = {DeviceBuffer<std::uint64_t>(s), DeviceBuffer<std::uint64_t>(s)};
  DeviceBuffer<std::uint32_t> positions[2] = {DeviceBuffer<std::uint32_t>(s), DeviceBuffer<std::uint32_t>(s)};
  cub::DoubleBuffer<std::uint64_t> key_buffer(keys[0].data(), keys[1].data());
  cub::DoubleBuffer<std::uint32_t> position_buffer(positions[0].data(), positions[1].data());
  std::size_t column_bytes = 0;
  std::size_t key_bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, column_bytes, columns.data(), sorted.data(),
                                                    static_cast<int>(s), 0, 32, stream));
  SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, key_bytes, key_buffer, position_buffer,
                                                     static_cast<int>(s), 0, 3 * d, stream));
  DeviceBuffer<unsigned char> temp(std::max(column_bytes, key_bytes));
  DeviceBuffer<PointId> leaf_ids(s);
  DeviceBuffer<Mask> masks[3] = {DeviceBuffer<Mask>(s), DeviceBuffer<Mask>(s), DeviceBuffer<Mask>(s)};
  DeviceBuffer<float> rows(static_cast<std::size_t>(s) * stride);

  timeline.mark(0);
  upload(values, data.values().data(), values_count, stream);
  upload(ids, points.data(), s, stream);
  timeline.mark(1);

  // Pivots: every column sorted, then one thread per column.
  gather_columns<<<grid_for(cells), block, 0, stream>>>(values.data(), d, ids.data(), s, columns.data());
  SEXTANT_CUDA_CHECK_LAUNCH();
  for (int j = 0; j < d; ++j) {
    const std::size_t offset = static_cast<std::size_t>(j) * s;
    std::size_t bytes = temp.size();
    SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, columns.data() + offset,
                                                      sorted.data() + offset, static_cast<int>(s), 0, 32,
                                                      stream));
  }
  column_pivots<<<1, 32, 0, stream>>>(sorted.data(), s, d, pivots.data());
  SEXTANT_CUDA_CHECK_LAUNCH();

  // Leaf order: path keys, a stable sort by key, then the leaves gathered in that order.
  path_keys<<<grid_for(s), block, 0, stream>>>(values.data(), d, ids.data(), s, pivots.data(),
                                               key_buffer.Current(), position_buffer.Current());
  SEXTANT_CUDA_CHECK_LAUNCH();
  std::size_t bytes = temp.size();
  SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, key_buffer, position_buffer,
                                                     static_cast<int>(s), 0, 3 * d, stream));
  leaves<<<grid_for(static_cast<std::size_t>(s) * stride), block, 0, stream>>>(
      values.data(), d, stride, ids.data(), s, key_buffer.Current(), position_buffer.Current(),
      leaf_ids.data(), masks[0].data(), masks[1].data(), masks[2].data(), rows.data());
  SEXTANT_CUDA_CHECK_LAUNCH();
  timeline.mark(2);

  QuadTreeLeaves out;
  out.dims = d;
  out.pivots.resize(static_cast<std::size_t>(d) * 7);
  out.ids.resize(s);
  out.median.resize(s);
  out.quartile.resize(s);
  out.octile.resize(s);
  out.rows = AlignedBuffer<float>(static_cast<std::size_t>(s) * stride);
  download(out.pivots.data(), pivots.data(), out.pivots.size(), stream);
  download(out.ids.data(), leaf_ids.data(), s, stream);
  download(out.median.data(), masks[0].data(), s, stream);
  download(out.quartile.data(), masks[1].data(), s, stream);
  download(out.octile.data(), masks[2].data(), s, stream);
  download(out.rows.data(), rows.data(), out.rows.size(), stream);
  timeline.mark(3);
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream));
  times_ += DeviceTimes{timeline.seconds(0, 1), timeline.seconds(1, 2), timeline.seconds(2, 3)};
  return QuadTree::from_leaves(std::move(out));
}

}  // namespace sextant::gpu
