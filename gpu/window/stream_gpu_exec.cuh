// Internal: the CUDA executor of the GPU stream-window stages. Two streams: `copy` moves the
// next chunk of a batch to the device while `compute` aggregates the current one (two upload
// slots, events in both directions). Device memory is grow-only: nothing is allocated in the
// steady state. The CUB calls and the per-tuple pass live in stream_gpu_exec.cu (compiled
// once); the per-element launches and the aggregate-typed reduce-by-key are templates here.
#pragma once

#include <cuda_runtime.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <utility>

#include "gpu/cuda_check.cuh"
#include "gpu/window/stream_gpu_items.hpp"
#include "gpu/window/stream_pane_stage_gpu.hpp"
#include "templates/window/count_window_policy.hpp"

namespace sextant::window::detail::stream_gpu {

using policy::block_threads;

template <class F>
__global__ void __launch_bounds__(block_threads) for_each_kernel(u64 n, F f) {
  const u64 stride = u64{gridDim.x} * blockDim.x;
  for (u64 i = u64{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

// Levels from+1 .. from+tree_tile_levels of a flat B-PAT, each block building the subtrees of
// block_threads nodes of level from+1 in shared memory. A node with one child copies it, as
// BuildLevel does (no combine with the identity).
inline constexpr int tree_tile_levels = std::countr_zero(block_threads) + 1;

template <StreamAggregate A>
__global__ void __launch_bounds__(block_threads) build_levels_kernel(TreeView<A> t, int from) {
  using P = Partial<A>;
  __shared__ alignas(P) unsigned char raw[sizeof(P) * block_threads];
  P* s = reinterpret_cast<P*>(raw);
  const int top = min(t.levels - 1, from + tree_tile_levels);
  const u64 x = u64{blockIdx.x} * block_threads + threadIdx.x;
  if (x < t.size[from + 1]) {
    const P* below = t.nodes + t.offset[from];
    const P v = 2 * x + 1 < t.size[from] ? P::combine(below[2 * x], below[2 * x + 1]) : below[2 * x];
    t.nodes[t.offset[from + 1] + x] = v;
    s[threadIdx.x] = v;
  }
  for (int l = from + 2; l <= top; ++l) {
    __syncthreads();
    const unsigned width = block_threads >> (l - from - 1);  // this block's nodes of level l
    const u64 gx = u64{blockIdx.x} * width + threadIdx.x;
    const bool has = threadIdx.x < width && gx < t.size[l];
    P v;
    if (has)
      v = 2 * gx + 1 < t.size[l - 1] ? P::combine(s[2 * threadIdx.x], s[2 * threadIdx.x + 1])
                                     : s[2 * threadIdx.x];
    __syncthreads();
    if (has) {
      s[threadIdx.x] = v;
      t.nodes[t.offset[l] + gx] = v;
    }
  }
}

class DeviceExec {
 public:
  explicit DeviceExec(int device);
  ~DeviceExec();
  DeviceExec(const DeviceExec&) = delete;
  DeviceExec& operator=(const DeviceExec&) = delete;

  // Grow-only device memory. reserve loses the contents when it grows; grow_keep keeps the first
  // `keep` elements and fills the rest of a new allocation with `fill`.
  template <class T>
  class Buffer {
   public:
    Buffer() = default;
    ~Buffer() {
      if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor
    }
    Buffer(Buffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
    Buffer& operator=(Buffer&& o) noexcept {
      std::swap(data_, o.data_);
      std::swap(capacity_, o.capacity_);
      return *this;
    }
    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    std::size_t capacity() const noexcept { return capacity_; }

    void reserve(DeviceExec& e, std::size_t n) {
      if (n <= capacity_) return;
      const std::size_t cap = grown(n);
      e.sync();
      if (data_ != nullptr) SEXTANT_CUDA_CHECK(cudaFree(data_));
      data_ = nullptr;
      capacity_ = 0;
      SEXTANT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), cap * sizeof(T)));
      capacity_ = cap;
    }
    void grow_keep(DeviceExec& e, std::size_t keep, std::size_t n, const T& fill) {
      if (n <= capacity_) return;
      const std::size_t cap = grown(n);
      T* next = nullptr;
      SEXTANT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&next), cap * sizeof(T)));
      keep = std::min(keep, capacity_);
      if (keep > 0) e.copy(next, data_, keep);
      e.for_each(cap - keep, Fill<T>{next + keep, fill});
      e.sync();
      if (data_ != nullptr) SEXTANT_CUDA_CHECK(cudaFree(data_));
      data_ = next;
      capacity_ = cap;
    }

   private:
    std::size_t grown(std::size_t n) const {
      const std::size_t cap = std::max(n, capacity_ + capacity_ / 2);
      return (cap + 255) / 256 * 256;
    }
    T* data_ = nullptr;
    std::size_t capacity_ = 0;
  };

  template <class F>
  void for_each(std::size_t n, const F& f) {
    if (n == 0) return;
    const u64 blocks = std::min<u64>((n + block_threads - 1) / block_threads, u64{16} * multiprocessors_);
    for_each_kernel<F><<<static_cast<unsigned>(blocks), block_threads, 0, compute_>>>(n, f);
    SEXTANT_CUDA_CHECK_LAUNCH();
  }
  template <class T>
  void copy(T* dst, const T* src, std::size_t n) {
    if (n > 0)
      SEXTANT_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice, compute_));
  }
  // Device -> host; returns once the data is there. Small reads (the counts the host needs
  // several times per push) go through page-locked memory: a pageable copy costs more than the
  // synchronisation itself.
  template <class T>
  void read(T* host, const T* src, std::size_t n) {
    read<T, unsigned char>(host, src, n, nullptr, nullptr, 0);
  }
  // A device -> host copy completed by the next read or sync (into pageable memory it is
  // complete on return anyway).
  template <class T>
  void read_later(T* host, const T* src, std::size_t n) {
    if (n > 0) fetch(host, src, n * sizeof(T));
  }
  // Two reads completed by one synchronisation (the small ones queued first: a copy to pageable
  // memory returns only once it is done).
  template <class T, class U>
  void read(T* a, const T* src_a, std::size_t na, U* b, const U* src_b, std::size_t nb) {
    const std::size_t bytes_a = na * sizeof(T), bytes_b = nb * sizeof(U);
    const bool box_a = bytes_a <= mailbox_bytes / 2, box_b = bytes_b <= mailbox_bytes / 2;
    if (box_a && na > 0) fetch(mailbox_, src_a, bytes_a);
    if (box_b && nb > 0) fetch(mailbox_ + mailbox_bytes / 2, src_b, bytes_b);
    if (!box_a) fetch(a, src_a, bytes_a);
    if (!box_b) fetch(b, src_b, bytes_b);
    sync();
    if (box_a && na > 0) std::memcpy(static_cast<void*>(a), mailbox_, bytes_a);
    if (box_b && nb > 0) std::memcpy(static_cast<void*>(b), mailbox_ + mailbox_bytes / 2, bytes_b);
  }
  // The levels above the leaves of a flat B-PAT (TreeView): up to tree_tile_levels per launch.
  template <StreamAggregate A>
  void build_tree(const TreeView<A>& tree);
  void sync();
  void drain();  // both streams

  ChunkColumns upload(const HostColumns& batch, std::size_t first, std::size_t n, int slot);
  void begin_chunk(int slot);
  void end_chunk(int slot);

  void prepare(const PrepareArgs& args, std::size_t n, PrepareStats* stats);
  void max_scan(const i64* in, i64* out, std::size_t n, i64 init);
  int sort_pairs(u64* keys[2], void* values[2], std::size_t value_bytes, std::size_t n, int end_bit);
  int sort_pairs(u32* keys[2], void* values[2], std::size_t value_bytes, std::size_t n, int end_bit);
  void inclusive_sum(const u32* in, u32* out, std::size_t n);
  void inclusive_sum(const u64* in, u64* out, std::size_t n);
  void segment_starts(const u32* slots, u32* out, std::size_t n);

  template <StreamAggregate A>
  void reduce_by_key(const u64* keys, const typename A::Input* values, std::size_t n, u64* out_keys,
                     Partial<A>* out_parts, u64* runs) {
    if constexpr (reads_values<A>)
      reduce_by_key_impl<A>(keys, thrust::make_transform_iterator(values, LiftOp<A>{}), n, out_keys,
                            out_parts, runs);
    else
      reduce_by_key_impl<A>(keys, thrust::make_constant_iterator(Partial<A>::lift(typename A::Input{}, {})),
                            n, out_keys, out_parts, runs);
  }

  // The same, each sorted tuple lifted from values[order[i]] with its timestamp.
  template <StreamAggregate A>
  void reduce_by_key_at(const u64* keys, const u32* order, const typename A::Input* values, const i64* ts,
                        std::size_t n, u64* out_keys, Partial<A>* out_parts, u64* runs) {
    reduce_by_key_impl<A>(
        keys,
        thrust::make_transform_iterator(thrust::counting_iterator<u64>(0), LiftAtOp<A>{order, values, ts}), n,
        out_keys, out_parts, runs);
  }

 private:
  template <StreamAggregate A, class It>
  void reduce_by_key_impl(const u64* keys, It values, std::size_t n, u64* out_keys, Partial<A>* out_parts,
                          u64* runs) {
    const auto items = checked_items(n);
    std::size_t bytes = 0;
    SEXTANT_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, bytes, keys, out_keys, values, out_parts, runs,
                                                      CombineOp<A>{}, items, compute_));
    temp_.reserve(*this, bytes);
    SEXTANT_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp_.data(), bytes, keys, out_keys, values, out_parts,
                                                      runs, CombineOp<A>{}, items, compute_));
  }
  static std::uint32_t checked_items(std::size_t n);

  // One upload slot: the chunk's columns on the device and, for batches in pageable memory,
  // page-locked staging they pass through.
  struct Slot {
    Buffer<u32> keys;
    Buffer<i64> ts;
    Buffer<unsigned char> values;
    Buffer<i64> wms;
    unsigned char* staging = nullptr;
    std::size_t staging_bytes = 0;
  };
  const void* put(Slot& s, const void* column, bool direct, std::size_t element, std::size_t first,
                  std::size_t n, void* device, std::size_t& staged);

  void fetch(void* host, const void* src, std::size_t bytes) {
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, compute_));
  }

  static constexpr std::size_t mailbox_bytes = 4096;
  int device_ = 0;
  int multiprocessors_ = 1;
  unsigned char* mailbox_ = nullptr;  // page-locked, mailbox_bytes
  cudaStream_t compute_ = nullptr;
  cudaStream_t copy_ = nullptr;
  cudaEvent_t copied_[2] = {};    // a slot's upload is complete
  cudaEvent_t consumed_[2] = {};  // the compute stream is done with a slot
  Slot slots_[2];
  Buffer<unsigned char> temp_;  // CUB scratch
};

template <StreamAggregate A>
void DeviceExec::build_tree(const TreeView<A>& tree) {
  for (int from = 0; from + 1 < tree.levels; from += tree_tile_levels) {
    const u64 blocks = (tree.size[from + 1] + block_threads - 1) / block_threads;
    build_levels_kernel<A><<<static_cast<unsigned>(blocks), block_threads, 0, compute_>>>(tree, from);
    SEXTANT_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace sextant::window::detail::stream_gpu
