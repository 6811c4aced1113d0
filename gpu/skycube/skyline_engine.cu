// SkylineEngine: kernels and the per-cuboid launch sequence. See skyline_engine.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/atomic>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "gpu/skycube/skyline_engine.cuh"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::gpu::detail {
namespace {

constexpr int kThreads = skycube::policy::Gpu::skyline_block_threads;  // also entries per shared tile
constexpr int kTile = kThreads;
constexpr std::uint64_t kSlice = 8 * kTile;             // comparison entries per compare block
constexpr int kCodeColumns = 16;                        // 4-bit code fields in 64 bits
constexpr int kPivots = 7;                              // octile pivots per coded column
constexpr int kSampleItems = 4;                         // 1024 sampled values per pivot column
constexpr std::uint64_t kHigh = 0x8888888888888888ull;  // the top bit of every code field
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr std::size_t kDefaultChunk = skycube::policy::Gpu::skyline_chunk_points;
constexpr std::size_t kMaxChunk = std::size_t{kThreads} * 32768;  // grid y stays far below 65535

// The projected columns of the subspace, in ascending column order.
struct Columns {
  int count = 0;
  int column[32] = {};
};

struct Args {
  const float* values = nullptr;  // n x d, row-major
  int d = 0;
  Columns cols;
  std::uint32_t count = 0;               // candidates
  const std::uint32_t* keys = nullptr;   // per sorted position
  const PointId* ids = nullptr;          // per sorted position
  const std::uint64_t* codes = nullptr;  // per sorted position
  std::uint32_t* status = nullptr;       // per sorted position: Verdict
  std::uint32_t* skyline = nullptr;      // sorted positions of S so far
  std::uint32_t* skyline_count = nullptr;
};

// Float -> unsigned with the same order (finite sums and infinities; -0 and +0 are one key).
__device__ __forceinline__ std::uint32_t sortable(float f) {
  if (f == 0.0f) f = 0.0f;
  const std::uint32_t u = __float_as_uint(f);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ PointId candidate(const PointId* candidates, std::uint32_t i) {
  return candidates != nullptr ? candidates[i] : i;
}

// Projected row of point `id` into registers (compile-time indices only: L is the width bucket).
template <int L>
__device__ __forceinline__ void load_row(const Args& a, PointId id, float (&v)[L]) {
  const float* row = a.values + std::size_t{id} * static_cast<std::size_t>(a.d);
#pragma unroll
  for (int j = 0; j < L; ++j) v[j] = j < a.cols.count ? __ldg(row + a.cols.column[j]) : 0.0f;
}

// Statuses only grow (atomicMax) while other blocks read them.
__device__ __forceinline__ std::uint32_t load_status(std::uint32_t* status) {
  return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*status).load(cuda::memory_order_relaxed);
}

// Field j = how many of column j's pivots are <= v[j]: monotone in v[j], so q <= p implies
// code(q) <= code(p) field by field.
template <int L>
__device__ __forceinline__ std::uint64_t code_of(const float (&v)[L], const float* pivots, int coded) {
  constexpr int kColumns = L < kCodeColumns ? L : kCodeColumns;
  std::uint64_t code = 0;
#pragma unroll
  for (int j = 0; j < kColumns; ++j) {
    if (j < coded) {
      unsigned k = 0;
#pragma unroll
      for (int t = 0; t < kPivots; ++t) k += pivots[j * kPivots + t] <= v[j] ? 1u : 0u;
      code |= std::uint64_t{k} << (4 * j);
    }
  }
  return code;
}

// Every field of q's code <= p's: (p_j + 8) - q_j never borrows across 4-bit fields (both <= 7)
// and keeps the field's top bit iff q_j <= p_j.
__device__ __forceinline__ bool codes_allow(std::uint64_t p, std::uint64_t q) {
  return (((p | kHigh) - q) & kHigh) == kHigh;
}

// A tile of comparison entries in shared memory; rows column-major so that a thread's store and
// the broadcast reads are conflict-free.
template <int L>
struct Tile {
  float rows[L * kTile];
  std::uint64_t codes[kTile];
  std::uint32_t keys[kTile];       // 0 = before every candidate (skyline points of earlier chunks)
  std::uint32_t positions[kTile];  // sorted positions
};

template <int L>
__device__ __forceinline__ void load_entry(const Args& a, Tile<L>& tile, int slot, std::uint32_t q,
                                           std::uint32_t key) {
  tile.positions[slot] = q;
  tile.keys[slot] = key;
  tile.codes[slot] = a.codes[q];
  const float* row = a.values + std::size_t{a.ids[q]} * static_cast<std::size_t>(a.d);
#pragma unroll
  for (int j = 0; j < L; ++j)
    if (j < a.cols.count) tile.rows[j * kTile + slot] = __ldg(row + a.cols.column[j]);
}

// 0: q does not dominate p; 1: q dominates p; 2: q strictly dominates p (q's values q[j * kTile]).
template <int L>
__device__ __forceinline__ int verdict(const float (&p)[L], const float* q, int columns) {
  int less = 0;
#pragma unroll
  for (int j = 0; j < L; ++j) {
    if (j < columns) {
      const float x = q[j * kTile];
      if (x > p[j]) return 0;
      less += x < p[j] ? 1 : 0;
    }
  }
  return less == 0 ? 0 : (less == columns ? 2 : 1);
}

// Raises `local` by the entries of the tile that may dominate p (sum key <= p's, not p itself).
template <int L>
__device__ __forceinline__ void scan_tile(const Tile<L>& tile, int entries, const float (&p)[L],
                                          std::uint64_t code, std::uint32_t key, std::uint32_t pos,
                                          int columns, int& local) {
  for (int k = 0; k < entries; ++k) {
    if (tile.keys[k] > key || tile.positions[k] == pos) continue;
    if (!codes_allow(code, tile.codes[k])) continue;
    const int v = verdict<L>(p, tile.rows + k, columns);
    if (v > local) {
      local = v;
      if (v == strictly_dominated) return;
    }
  }
}

// Octile pivots of projected column blockIdx.x from up to 1024 evenly spaced candidates.
__global__ void __launch_bounds__(kThreads) pivots_kernel(Args a, const PointId* candidates, float* pivots) {
  using Sort = cub::BlockRadixSort<float, kThreads, kSampleItems>;
  __shared__ typename Sort::TempStorage temp;
  __shared__ float sorted[kThreads * kSampleItems];
  int column = 0;
#pragma unroll
  for (int j = 0; j < kCodeColumns; ++j)
    if (j == static_cast<int>(blockIdx.x)) column = a.cols.column[j];
  const std::uint32_t samples = min(a.count, static_cast<std::uint32_t>(kThreads * kSampleItems));
  float keys[kSampleItems];
#pragma unroll
  for (int i = 0; i < kSampleItems; ++i) {
    const std::uint32_t s = threadIdx.x * kSampleItems + i;
    keys[i] = INFINITY;  // after every real value
    if (s < samples) {
      const auto at = static_cast<std::uint32_t>(std::uint64_t{s} * a.count / samples);
      keys[i] = a.values[std::size_t{candidate(candidates, at)} * static_cast<std::size_t>(a.d) + column];
    }
  }
  Sort(temp).Sort(keys);
#pragma unroll
  for (int i = 0; i < kSampleItems; ++i) sorted[threadIdx.x * kSampleItems + i] = keys[i];
  __syncthreads();
  if (threadIdx.x < kPivots)
    pivots[blockIdx.x * kPivots + threadIdx.x] = sorted[(threadIdx.x + 1) * samples / 8];
}

// The sort key of every candidate (its projected sum) and its candidate index.
template <int L>
__global__ void __launch_bounds__(kThreads)
    keys_kernel(Args a, const PointId* candidates, std::uint32_t* keys, std::uint32_t* order) {
  for (std::uint32_t i = blockIdx.x * kThreads + threadIdx.x; i < a.count; i += gridDim.x * kThreads) {
    float v[L];
    load_row<L>(a, candidate(candidates, i), v);
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < L; ++j)
      if (j < a.cols.count) sum += v[j];  // the same order for every point
    keys[i] = sortable(sum);
    order[i] = i;
  }
}

// Per sorted position: the id, the code, a clear status.
template <int L>
__global__ void __launch_bounds__(kThreads)
    codes_kernel(Args a, const PointId* candidates, const std::uint32_t* order, const float* pivots,
                 int coded, PointId* ids, std::uint64_t* codes) {
  __shared__ float shared_pivots[kCodeColumns * kPivots];
  for (int k = threadIdx.x; k < coded * kPivots; k += kThreads) shared_pivots[k] = pivots[k];
  __syncthreads();
  for (std::uint32_t pos = blockIdx.x * kThreads + threadIdx.x; pos < a.count; pos += gridDim.x * kThreads) {
    const PointId id = candidate(candidates, order[pos]);
    float v[L];
    load_row<L>(a, id, v);
    ids[pos] = id;
    codes[pos] = code_of<L>(v, shared_pivots, coded);
    a.status[pos] = skyline;
  }
}

// Chunk [chunk_begin, chunk_begin + chunk_len) against a virtual list: the settled skyline points
// S (entries 0 .. |S|-1) followed by the chunk itself. Block (x, y): entries of slice x against
// the chunk's points y * 256 ...
template <int L>
__global__ void __launch_bounds__(kThreads)
    compare_kernel(Args a, std::uint32_t chunk_begin, std::uint32_t chunk_len) {
  __shared__ Tile<L> tile;
  const std::uint32_t settled = *a.skyline_count;  // final: the previous chunk's append is done
  const std::uint64_t total = std::uint64_t{settled} + chunk_len;
  const std::uint64_t begin = std::uint64_t{blockIdx.x} * kSlice;
  if (begin >= total) return;  // the grid is sized for the largest possible |S|
  const std::uint64_t end = min(begin + kSlice, total);

  const std::uint32_t i = blockIdx.y * kThreads + threadIdx.x;
  const std::uint32_t pos = chunk_begin + i;
  float p[L] = {};
  std::uint64_t code = 0;
  std::uint32_t key = 0;
  int before = strictly_dominated;  // threads without a point never scan
  if (i < chunk_len) {
    before = static_cast<int>(load_status(a.status + pos));
    key = a.keys[pos];
    code = a.codes[pos];
    load_row<L>(a, a.ids[pos], p);
  }
  int local = before;
  for (std::uint64_t base = begin; base < end; base += kTile) {
    // Also the barrier before the tile is overwritten.
    if (!__syncthreads_or(local < strictly_dominated)) break;
    const std::uint64_t v = base + threadIdx.x;
    if (v < end) {
      if (v < settled) {
        load_entry<L>(a, tile, threadIdx.x, a.skyline[v], 0u);
      } else {
        const auto q = static_cast<std::uint32_t>(chunk_begin + (v - settled));
        load_entry<L>(a, tile, threadIdx.x, q, a.keys[q]);
      }
    }
    __syncthreads();
    if (local < strictly_dominated)
      scan_tile<L>(tile, static_cast<int>(min(std::uint64_t{kTile}, end - base)), p, code, key, pos,
                   a.cols.count, local);
  }
  if (local > before) atomicMax(a.status + pos, static_cast<std::uint32_t>(local));
}

// The chunk's points whose sum equals that of the first point after the chunk, against the
// points after the chunk with that sum (a dominator's sum may tie p's after rounding).
template <int L>
__global__ void __launch_bounds__(kThreads)
    tail_kernel(Args a, std::uint32_t chunk_begin, std::uint32_t chunk_len) {
  __shared__ Tile<L> tile;
  __shared__ std::uint32_t run_end;
  const std::uint32_t chunk_end = chunk_begin + chunk_len;  // < count: the host checks
  const std::uint32_t next = a.keys[chunk_end];
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  const std::uint32_t pos = chunk_begin + i;
  int before = strictly_dominated;
  if (i < chunk_len && a.keys[pos] == next) before = static_cast<int>(load_status(a.status + pos));
  int local = before;
  if (!__syncthreads_or(local < strictly_dominated)) return;
  if (threadIdx.x == 0) {  // the end of the run of `next`
    std::uint32_t lo = chunk_end + 1, hi = a.count;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (a.keys[mid] <= next)
        lo = mid + 1;
      else
        hi = mid;
    }
    run_end = lo;
  }
  float p[L] = {};
  std::uint64_t code = 0;
  if (local < strictly_dominated) {
    code = a.codes[pos];
    load_row<L>(a, a.ids[pos], p);
  }
  __syncthreads();
  const std::uint32_t stop = run_end;
  for (std::uint64_t base = chunk_end; base < stop; base += kTile) {
    if (!__syncthreads_or(local < strictly_dominated)) break;
    const std::uint64_t v = base + threadIdx.x;
    if (v < stop) load_entry<L>(a, tile, threadIdx.x, static_cast<std::uint32_t>(v), next);
    __syncthreads();
    if (local < strictly_dominated)
      scan_tile<L>(tile, static_cast<int>(min(std::uint64_t{kTile}, stop - base)), p, code, next, pos,
                   a.cols.count, local);
  }
  if (local > before) atomicMax(a.status + pos, static_cast<std::uint32_t>(local));
}

// The chunk's undominated points join S (warp-aggregated: one atomic per warp).
__global__ void __launch_bounds__(kThreads)
    append_kernel(Args a, std::uint32_t chunk_begin, std::uint32_t chunk_len) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  const bool add = i < chunk_len && a.status[chunk_begin + i] == skyline;
  const unsigned ballot = __ballot_sync(kFullWarp, add);  // every lane is here (no early exit above)
  if (ballot == 0) return;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int leader = __ffs(ballot) - 1;
  std::uint32_t base = 0;
  if (lane == leader) base = atomicAdd(a.skyline_count, static_cast<std::uint32_t>(__popc(ballot)));
  base = __shfl_sync(kFullWarp, base, leader);
  if (add)
    a.skyline[base + static_cast<std::uint32_t>(__popc(ballot & ((1u << lane) - 1u)))] = chunk_begin + i;
}

// Verdicts back in candidate order.
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(Args a, const std::uint32_t* order, std::uint8_t* verdicts) {
  for (std::uint32_t pos = blockIdx.x * kThreads + threadIdx.x; pos < a.count; pos += gridDim.x * kThreads)
    verdicts[order[pos]] = static_cast<std::uint8_t>(a.status[pos]);
}

// Calls f(std::integral_constant<int, L>) with the register width bucket for `columns`.
template <class F>
void with_width(int columns, F&& f) {
  if (columns <= 4)
    f(std::integral_constant<int, 4>{});
  else if (columns <= 8)
    f(std::integral_constant<int, 8>{});
  else if (columns <= 16)
    f(std::integral_constant<int, 16>{});
  else
    f(std::integral_constant<int, 32>{});
}

unsigned blocks_for(std::size_t items) {
  return static_cast<unsigned>(std::min<std::size_t>((items + kThreads - 1) / kThreads, 1u << 20));
}

double elapsed(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  SEXTANT_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace

double DeviceDataset::assign(const Dataset& data, cudaStream_t stream) {
  ScopedDevice scope(ordinal_);
  Stopwatch clock;
  const std::size_t floats = data.size() * static_cast<std::size_t>(data.dims());
  source_ = nullptr;  // stays unset if the copy fails
  reserve(values_, floats);
  if (floats != 0)
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(values_.data(), data.values().data(), floats * sizeof(float),
                                       cudaMemcpyHostToDevice, stream));
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream));
  source_ = &data;
  source_values_ = data.values().data();
  n_ = data.size();
  d_ = data.dims();
  return clock.seconds();
}

SkylineEngine::SkylineEngine(int ordinal, std::size_t chunk_points)
    : ordinal_(ordinal),
      chunk_points_(chunk_points == 0 ? kDefaultChunk : std::min(chunk_points, kMaxChunk)),
      own_(ordinal) {
  ScopedDevice scope(ordinal_);
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  for (cudaEvent_t& e : events_) SEXTANT_CUDA_CHECK(cudaEventCreate(&e));
  skyline_count_ = DeviceBuffer<std::uint32_t>(1);
  pivots_ = DeviceBuffer<float>(kCodeColumns * kPivots);
}

SkylineEngine::~SkylineEngine() {  // no throws; the buffers free themselves
  cudaSetDevice(ordinal_);
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (cudaEvent_t e : events_)
    if (e != nullptr) cudaEventDestroy(e);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

const DeviceDataset& SkylineEngine::upload(const Dataset& data) {
  times_.upload += own_.assign(data, stream_);
  return own_;
}

void SkylineEngine::reserve_for(std::size_t count) {
  reserve(candidates_, count);
  reserve(keys_in_, count);
  reserve(keys_, count);
  reserve(order_in_, count);
  reserve(order_, count);
  reserve(ids_, count);
  reserve(codes_, count);
  reserve(status_, count);
  reserve(skyline_, count);
  reserve(verdicts_, count);
  host_candidates_.reserve(count);
  host_verdicts_.reserve(count);
  std::size_t bytes = 0;
  SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in_.data(), keys_.data(),
                                                     order_in_.data(), order_.data(), static_cast<int>(count),
                                                     0, 32, stream_));
  reserve(sort_scratch_, std::max<std::size_t>(bytes, 1));
}

const std::uint8_t* SkylineEngine::classify(const DeviceDataset& data, const PointId* candidates,
                                            std::size_t count, Mask mask) {
  ScopedDevice scope(ordinal_);
  if (data.ordinal() != ordinal_)
    throw Error::internal("gpu skyline: dataset on GPU " + std::to_string(data.ordinal()) +
                          ", engine on GPU " + std::to_string(ordinal_));
  const int d = data.dims();
  check_subspace(mask, d);
  if (count == 0) return nullptr;
  if (count > 0x7fffffffu)
    throw Error::unsupported("gpu skyline: more than 2^31 - 1 candidates in one cuboid");

  Args a;
  a.values = data.values();
  a.d = d;
  for (Mask m = mask; m != 0; m &= m - 1) a.cols.column[a.cols.count++] = std::countr_zero(m);
  a.count = static_cast<std::uint32_t>(count);
  reserve_for(count);
  a.keys = keys_.data();
  a.ids = ids_.data();
  a.codes = codes_.data();
  a.status = status_.data();
  a.skyline = skyline_.data();
  a.skyline_count = skyline_count_.data();

  SEXTANT_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  const PointId* device_candidates = nullptr;
  if (candidates != nullptr) {
    std::memcpy(host_candidates_.data(), candidates, count * sizeof(PointId));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(candidates_.data(), host_candidates_.data(), count * sizeof(PointId),
                                       cudaMemcpyHostToDevice, stream_));
    device_candidates = candidates_.data();
  }
  SEXTANT_CUDA_CHECK(cudaEventRecord(events_[1], stream_));

  // Pivots only where there are enough candidates to prune anything.
  const int coded = count >= 64 ? std::min(a.cols.count, kCodeColumns) : 0;
  if (coded > 0) {
    pivots_kernel<<<coded, kThreads, 0, stream_>>>(a, device_candidates, pivots_.data());
    SEXTANT_CUDA_CHECK_LAUNCH();
  }
  const unsigned grid = blocks_for(count);
  with_width(a.cols.count, [&](auto width) {
    constexpr int L = decltype(width)::value;
    keys_kernel<L><<<grid, kThreads, 0, stream_>>>(a, device_candidates, keys_in_.data(), order_in_.data());
    SEXTANT_CUDA_CHECK_LAUNCH();
  });
  std::size_t sort_bytes = sort_scratch_.size();
  SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_scratch_.data(), sort_bytes, keys_in_.data(),
                                                     keys_.data(), order_in_.data(), order_.data(),
                                                     static_cast<int>(count), 0, 32, stream_));
  SEXTANT_CUDA_CHECK_LAUNCH();
  SEXTANT_CUDA_CHECK(cudaMemsetAsync(skyline_count_.data(), 0, sizeof(std::uint32_t), stream_));
  with_width(a.cols.count, [&](auto width) {
    constexpr int L = decltype(width)::value;
    codes_kernel<L><<<grid, kThreads, 0, stream_>>>(a, device_candidates, order_.data(), pivots_.data(),
                                                    coded, ids_.data(), codes_.data());
    SEXTANT_CUDA_CHECK_LAUNCH();
    for (std::size_t begin = 0; begin < count; begin += chunk_points_) {
      const std::size_t len = std::min(chunk_points_, count - begin);
      const auto b32 = static_cast<std::uint32_t>(begin);
      const auto l32 = static_cast<std::uint32_t>(len);
      const dim3 compare_grid(static_cast<unsigned>((begin + len + kSlice - 1) / kSlice),
                              static_cast<unsigned>((len + kThreads - 1) / kThreads));
      compare_kernel<L><<<compare_grid, kThreads, 0, stream_>>>(a, b32, l32);
      SEXTANT_CUDA_CHECK_LAUNCH();
      if (begin + len == count) break;  // the last chunk: nothing after it, nobody reads S again
      const unsigned chunk_grid = static_cast<unsigned>((len + kThreads - 1) / kThreads);
      tail_kernel<L><<<chunk_grid, kThreads, 0, stream_>>>(a, b32, l32);
      SEXTANT_CUDA_CHECK_LAUNCH();
      append_kernel<<<chunk_grid, kThreads, 0, stream_>>>(a, b32, l32);
      SEXTANT_CUDA_CHECK_LAUNCH();
    }
  });
  scatter_kernel<<<grid, kThreads, 0, stream_>>>(a, order_.data(), verdicts_.data());
  SEXTANT_CUDA_CHECK_LAUNCH();
  SEXTANT_CUDA_CHECK(cudaEventRecord(events_[2], stream_));
  SEXTANT_CUDA_CHECK(
      cudaMemcpyAsync(host_verdicts_.data(), verdicts_.data(), count, cudaMemcpyDeviceToHost, stream_));
  SEXTANT_CUDA_CHECK(cudaEventRecord(events_[3], stream_));
  SEXTANT_CUDA_CHECK(cudaEventSynchronize(events_[3]));

  times_.upload += elapsed(events_[0], events_[1]);
  times_.kernels += elapsed(events_[1], events_[2]);
  times_.download += elapsed(events_[2], events_[3]);
  return host_verdicts_.data();
}

void check_subspace(Mask mask, int d) {
  if (mask == 0 || (mask & ~full_mask(d)) != 0)
    throw Error::argument("subspace", std::to_string(mask), "1.." + std::to_string(full_mask(d)),
                          "not a subspace of the dataset's columns");
}

void split_verdicts(const std::uint8_t* verdicts, const PointId* candidates, std::size_t count,
                    skycube::CuboidOutput& out) {
  std::size_t in_skyline = 0, extended_only = 0;
  for (std::size_t i = 0; i < count; ++i) {
    in_skyline += verdicts[i] == skyline;
    extended_only += verdicts[i] == dominated;
  }
  skycube::CuboidOutput result;
  result.skyline.reserve(in_skyline);
  result.extended_only.reserve(extended_only);
  for (std::size_t i = 0; i < count; ++i) {
    const PointId id = candidates != nullptr ? candidates[i] : static_cast<PointId>(i);
    if (verdicts[i] == skyline)
      result.skyline.push_back(id);
    else if (verdicts[i] == dominated)
      result.extended_only.push_back(id);
  }
  out = std::move(result);
}

}  // namespace sextant::gpu::detail
