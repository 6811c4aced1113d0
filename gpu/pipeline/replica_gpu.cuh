// The GPU replicas: PipelineGpu's members (pipeline_gpu.hpp): the persistent kernel and its host side.
// Include from a .cu file that instantiates PipelineGpu for a pipeline type.
//
// One block = one replica of policy::gpu_lanes threads = one vector. Thread 0 runs the firing
// policy (the CPU's, templates/pipeline/firing_policy.hpp) on the block's queue counters in shared
// memory; then every thread takes one input of the chosen group and runs the group's nodes depth
// first (merged nodes call each other in the lane, no queue between them). Outputs:
//   * unordered: each push reserves its slot with one atomic per warp (the lanes pushing together
//     share it: warp-level compaction), in the group's output queue or in the chunk's output buffer;
//   * ordered: the group runs twice, first counting each lane's outputs, then, after a block-wide
//     exclusive scan, writing them at their lane's offset, so that a queue and the sink keep
//     input order; node bodies read only their parameters and state, so both passes push the same.
// A push beyond the node's gain limit is dropped and recorded in an error word that the host turns
// into an Error naming the node, so nothing is written past the room the policy reserved.
// Blocks claim at most policy::gpu_claim_vectors vectors of inputs at a time (claim_size); unordered, a block
// claims more as soon as its source runs dry and flushes only at the end; ordered, it flushes after each
// claim and tags its outputs with the claim, which the host sorts by (stably).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/pipeline/pipeline_gpu.hpp"
#include "templates/pipeline/firing_policy.hpp"
#include "templates/pipeline/pipeline_policy.hpp"

namespace sextant::pipeline::gpu {

using sextant::gpu::DeviceBuffer;
using sextant::gpu::ScopedDevice;

namespace detail {

namespace cg = cooperative_groups;

inline constexpr unsigned lanes = policy::gpu_lanes;
inline constexpr unsigned bins = policy::histogram_bins;
inline constexpr unsigned error_gain = 1;
inline constexpr unsigned error_exact = 2;

// Per-node counters every block adds to at its end (the histograms per firing, in profile runs).
struct DeviceCounters {
  unsigned long long switches;
  unsigned long long firings;
  unsigned long long inputs[policy::max_nodes];
  unsigned long long outputs[policy::max_nodes];
  unsigned long long vectors[policy::max_nodes];
  unsigned long long full_vectors[policy::max_nodes];
  unsigned long long service[policy::max_nodes];  // cycles
  unsigned long long overhead[policy::max_nodes];
  unsigned long long full_hist[policy::max_nodes][bins];
  unsigned long long any_hist[policy::max_nodes][bins];
};

// What a launch's blocks report, in one allocation: zeroed by one memset before the launch and read
// back by one copy into pinned memory after it.
struct ChunkStatus {
  unsigned long long next;       // sources claimed so far, from begin
  unsigned long long out_count;  // outputs pushed, written or not
  unsigned error;                // (kind << 16) | node, the first one
  DeviceCounters counters;
};

// The inputs per claim for a chunk of n over `blocks` blocks: as even as the granule allows over the
// fewest rounds of claims of at most policy::gpu_claim_vectors vectors.
inline std::uint32_t claim_size(std::uint64_t n, int blocks) {
  const std::uint64_t most = std::uint64_t{policy::gpu_claim_vectors} * lanes;
  const std::uint64_t b = static_cast<std::uint64_t>(std::max(blocks, 1));
  const std::uint64_t rounds = std::max<std::uint64_t>(1, (n + b * most - 1) / (b * most));
  const std::uint64_t even = (n + b * rounds - 1) / (b * rounds);
  const std::uint64_t granule = policy::gpu_claim_granule;
  return static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>((even + granule - 1) / granule * granule, granule, most));
}

template <class P>
struct KernelArgs {
  typename P::Params params;
  const typename P::Input* source_items;  // the chunk's items (nullptr: the index is the item)
  std::uint64_t begin;                    // the chunk: sources [begin, end)
  std::uint64_t end;
  std::uint32_t claim;       // sources per claim
  unsigned long long* next;  // sources claimed so far, from begin
  ReplicaLayout layout;
  std::byte* queues;           // global arena, arena_bytes per block; nullptr: in shared memory
  typename P::States* states;  // one per block; nullptr: in shared memory
  std::size_t state_bytes;     // shared bytes before the arena
  typename P::Output* out_items;
  std::uint32_t* out_tags;  // ordered: the claim of each item
  unsigned long long out_capacity;
  unsigned long long* out_count;
  bool collect;
  unsigned* error;  // (kind << 16) | node, the first one
  DeviceCounters* counters;
};

struct BlockShared {
  ReplicaSchedule sched;
  Firing decision;
  unsigned long long out_base;  // ordered: the firing's first slot in the output buffer
  std::uint32_t produced;       // outputs written to the group's output queue in this firing
  std::uint32_t widest;         // the head node's largest lane gain in this firing
  std::uint32_t tag;            // ordered: the current claim
  bool exhausted;               // no claim left
  unsigned long long node_inputs[policy::max_nodes];
  unsigned long long node_outputs[policy::max_nodes];
};

template <std::size_t I, class P>
using node_t = typename P::template node<I>;
template <std::size_t I, class P>
using out_t = typename node_t<I, P>::Output;

__device__ inline std::uint32_t reserve_shared(std::uint32_t* counter) {
  cg::coalesced_group g = cg::coalesced_threads();
  std::uint32_t base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(counter, g.num_threads());
  base = g.shfl(base, 0);
  return base + g.thread_rank();
}

__device__ inline unsigned long long reserve_global(unsigned long long* counter) {
  cg::coalesced_group g = cg::coalesced_threads();
  unsigned long long base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(counter, static_cast<unsigned long long>(g.num_threads()));
  base = g.shfl(base, 0);
  return base + g.thread_rank();
}

// One lane's view of its block's replica during a firing.
template <class P, bool Profile, bool Ordered>
struct Lane {
  using Scan = cub::BlockScan<std::uint32_t, lanes>;

  const KernelArgs<P>& a;
  BlockShared& sh;
  const typename P::States& states;
  std::byte* arena;
  typename Scan::TempStorage& scan;
  unsigned limit[P::size];
  bool counting = false;        // ordered: the counting pass
  std::uint32_t count = 0;      // ordered: this lane's outputs
  std::uint32_t cursor = 0;     // ordered: outputs written so far
  std::uint32_t lane_base = 0;  // ordered: this lane's first output of the firing
  std::uint32_t tail = 0;       // the output queue's first free slot at the firing's start

  template <std::size_t I>
  __device__ out_t<I, P>* queue_items() const {
    return reinterpret_cast<out_t<I, P>*>(arena + a.layout.offset[I]);
  }

  __device__ void fail(unsigned kind, std::size_t node) const {
    atomicCAS(a.error, 0U, (kind << 16) | static_cast<unsigned>(node));
  }

  template <std::size_t I>
  struct Emit {
    Lane* lane;
    unsigned pushed;
    __device__ void push(const out_t<I, P>& item) {
      if (pushed >= lane->limit[I]) {
        lane->fail(error_gain, I);
        return;
      }
      ++pushed;
      lane->template deliver<I>(item);
    }
  };

  template <std::size_t I>
  __device__ void finish(const Emit<I>& e) {
    using N = node_t<I, P>;
    if constexpr (gain_kind_of<N>() == GainKind::exact)
      if (e.pushed != limit[I]) fail(error_exact, I);
    if constexpr (Profile)
      if (!counting) {
        atomicAdd(&sh.node_inputs[I], 1ULL);
        atomicAdd(&sh.node_outputs[I], static_cast<unsigned long long>(e.pushed));
      }
  }

  template <std::size_t I>
  __device__ void store(const out_t<I, P>& item) {
    if constexpr (I + 1 == P::size) {  // the sink
      if constexpr (Ordered) {
        if (counting) {
          ++count;
          return;
        }
        const unsigned long long at = sh.out_base + lane_base + cursor++;
        if (a.collect && at < a.out_capacity) {
          a.out_items[at] = item;
          a.out_tags[at] = sh.tag;
        }
      } else {
        const unsigned long long at = reserve_global(a.out_count);
        if (a.collect && at < a.out_capacity) a.out_items[at] = item;
      }
    } else {
      std::uint32_t at = 0;
      if constexpr (Ordered) {
        if (counting) {
          ++count;
          return;
        }
        at = lane_base + cursor++;
      } else {
        at = reserve_shared(&sh.produced);
      }
      std::uint32_t slot = tail + at;
      while (slot >= a.layout.capacity[I]) slot -= a.layout.capacity[I];
      queue_items<I>()[slot] = item;
    }
  }

  template <std::size_t I>
  __device__ void deliver(const out_t<I, P>& item) {
    if constexpr (I + 1 == P::size) {
      store<I>(item);
    } else {
      if (a.layout.group_of[I] != a.layout.group_of[I + 1]) {
        store<I>(item);
      } else {
        Emit<I + 1> e{this, 0};
        run_node<node_t<I + 1, P>>(a.params.template get<I + 1>(), states.template get<I + 1>(), item, e);
        finish<I + 1>(e);
      }
    }
  }

  template <std::size_t F>
  __device__ typename node_t<F, P>::Input input(std::uint32_t lane) const {
    if constexpr (F == 0) {
      const std::uint64_t i = sh.sched.source_next + lane;
      if constexpr (std::is_constructible_v<typename P::Input, std::uint64_t>) {
        if (a.source_items == nullptr) return static_cast<typename P::Input>(i);
      }
      return a.source_items[i - a.begin];
    } else {
      const QueueCursor q = sh.sched.queue[F - 1];
      std::uint32_t slot = q.head + lane;
      if (slot >= a.layout.capacity[F - 1]) slot -= a.layout.capacity[F - 1];
      return queue_items<F - 1>()[slot];
    }
  }

  template <std::size_t F>
  __device__ void run_head(std::uint32_t take) {
    const std::uint32_t lane = threadIdx.x;
    if (lane < take) {
      const auto x = input<F>(lane);
      Emit<F> e{this, 0};
      run_node<node_t<F, P>>(a.params.template get<F>(), states.template get<F>(), x, e);
      finish<F>(e);
      if constexpr (Profile)
        if (!counting) atomicMax(&sh.widest, e.pushed);
    }
  }

  // Fires the group whose first node is F on `take` inputs; every thread of the block calls it.
  template <std::size_t F>
  __device__ void fire_from(std::uint32_t take, std::uint32_t last) {
    if (last + 1 < P::size) {
      const QueueCursor q = sh.sched.queue[last];
      tail = q.head + q.count;
      if (tail >= a.layout.capacity[last]) tail -= a.layout.capacity[last];
    }
    if constexpr (Ordered) {
      counting = true;
      count = 0;
      run_head<F>(take);
      std::uint32_t total = 0;
      Scan(scan).ExclusiveSum(count, lane_base, total);
      if (threadIdx.x == 0) {
        if (last + 1 == P::size)
          sh.out_base = atomicAdd(a.out_count, static_cast<unsigned long long>(total));
        else
          sh.produced = total;
      }
      __syncthreads();
      counting = false;
      cursor = 0;
    }
    run_head<F>(take);
  }

  template <std::size_t... I>
  __device__ void fire(std::uint32_t first, std::uint32_t take, std::uint32_t last,
                       std::index_sequence<I...>) {
    ((I == first ? fire_from<I>(take, last) : void()), ...);
  }
};

// Claims the next inputs for the block (thread 0); false when the chunk is used up.
template <class P>
__device__ bool claim(const KernelArgs<P>& a, BlockShared& sh) {
  const std::uint64_t total = a.end - a.begin;
  const unsigned long long c = atomicAdd(a.next, static_cast<unsigned long long>(a.claim));
  if (c >= total) {
    sh.exhausted = true;
    return false;
  }
  sh.sched.start_chunk(a.begin + c, a.begin + (c + a.claim < total ? c + a.claim : total));
  sh.tag = static_cast<std::uint32_t>(c / a.claim);
  return true;
}

template <class P, bool Profile, bool Ordered>
__global__ void __launch_bounds__(lanes) pipeline_kernel(const KernelArgs<P> a) {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  __shared__ BlockShared sh;
  __shared__ typename Lane<P, Profile, Ordered>::Scan::TempStorage scan;
  using States = typename P::States;
  States* states = a.states != nullptr ? a.states + blockIdx.x : reinterpret_cast<States*>(dynamic_shared);
  std::byte* arena = a.queues != nullptr
                         ? a.queues + static_cast<std::size_t>(blockIdx.x) * a.layout.arena_bytes
                         : reinterpret_cast<std::byte*>(dynamic_shared + a.state_bytes);
  if (threadIdx.x == 0) {
    *states = States{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (init_state<node_t<I, P>>(a.params.template get<I>(), states->template get<I>()), ...);
    }
    (std::make_index_sequence<P::size>{});
    sh.sched = ReplicaSchedule{};
    sh.exhausted = false;
    for (std::size_t i = 0; i < P::size; ++i) sh.node_inputs[i] = sh.node_outputs[i] = 0;
    claim(a, sh);
  }
  __syncthreads();
  Lane<P, Profile, Ordered> lane{a, sh, *states, arena, scan};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((lane.limit[I] = gain_limit_of<node_t<I, P>>(a.params.template get<I>())), ...);
  }
  (std::make_index_sequence<P::size>{});
  unsigned long long switches = 0, firings = 0;
  int last_group = -1;
  long long mark = 0, started = 0;
  if constexpr (Profile) mark = clock64();
  while (true) {
    if (threadIdx.x == 0) {
      if (!Ordered && sh.sched.source_left == 0 && !sh.exhausted) claim(a, sh);
      Firing f = choose_firing(a.layout, sh.sched);
      if (f.group < 0 && Ordered && !sh.exhausted && claim(a, sh)) f = choose_firing(a.layout, sh.sched);
      sh.decision = f;
      sh.produced = 0;
      sh.widest = 0;
      if (f.group >= 0) {
        if (f.group != last_group) ++switches;
        last_group = f.group;
        ++firings;
      }
      if constexpr (Profile) started = clock64();
    }
    __syncthreads();
    const Firing f = sh.decision;
    if (f.group < 0) break;
    const std::uint32_t first = a.layout.group_first[f.group];
    const std::uint32_t last = a.layout.group_last[f.group];
    lane.fire(first, f.take, last, std::make_index_sequence<P::size>{});
    __syncthreads();
    if (threadIdx.x == 0) {
      if (first == 0) {
        sh.sched.source_next += f.take;
        sh.sched.source_left -= f.take;
      } else {
        QueueCursor& q = sh.sched.queue[first - 1];
        q.head += f.take;
        if (q.head >= a.layout.capacity[first - 1]) q.head -= a.layout.capacity[first - 1];
        q.count -= f.take;
      }
      if (last + 1 < P::size) sh.sched.queue[last].count += sh.produced;
      if constexpr (Profile) {
        const long long now = clock64();
        atomicAdd(&a.counters->service[first], static_cast<unsigned long long>(now - started));
        atomicAdd(&a.counters->overhead[first], static_cast<unsigned long long>(started - mark));
        mark = now;
        atomicAdd(&a.counters->vectors[first], 1ULL);
        const unsigned bin = sh.widest < bins ? sh.widest : bins - 1;
        atomicAdd(&a.counters->any_hist[first][bin], 1ULL);
        if (f.take == lanes) {
          atomicAdd(&a.counters->full_vectors[first], 1ULL);
          atomicAdd(&a.counters->full_hist[first][bin], 1ULL);
        }
      }
    }
  }
  if (threadIdx.x == 0) {
    atomicAdd(&a.counters->switches, switches);
    atomicAdd(&a.counters->firings, firings);
    if constexpr (Profile)
      for (std::size_t i = 0; i < P::size; ++i) {
        atomicAdd(&a.counters->inputs[i], sh.node_inputs[i]);
        atomicAdd(&a.counters->outputs[i], sh.node_outputs[i]);
      }
  }
}

}  // namespace detail

template <PipelineType P>
struct PipelineGpu<P>::State {
  using In = typename P::Input;
  using Out = typename P::Output;
  using States = typename P::States;

  int ordinal = 0;
  cudaStream_t stream = nullptr;
  ReplicaOptions options;
  Instance<P> host;
  std::vector<std::string> names;
  std::vector<unsigned> limits;
  typename P::Params device_params{};
  std::vector<DeviceBuffer<unsigned char>> uploads;
  std::map<std::pair<const void*, std::size_t>, const void*> uploaded;
  DeviceBuffer<std::byte> queues;
  DeviceBuffer<States> states;
  DeviceBuffer<In> source_items;
  DeviceBuffer<Out> out_items;
  DeviceBuffer<std::uint32_t> out_tags;
  DeviceBuffer<detail::ChunkStatus> status;
  detail::ChunkStatus* host_status = nullptr;  // pinned
  bool shared_queues = false;
  bool shared_states = false;
  std::size_t state_bytes = 0;    // shared bytes before the arena
  std::size_t dynamic_bytes = 0;  // dynamic shared memory per block
  int blocks = 0;
  double outputs_per_source = policy::gpu_output_slots_per_input;

  ~State() {
    if (stream != nullptr) cudaStreamDestroy(stream);
    if (host_status != nullptr) cudaFreeHost(host_status);
  }

  template <class T>
  const T* upload(const T* data, std::size_t count) {
    if (data == nullptr || count == 0) return nullptr;
    const auto key = std::make_pair(static_cast<const void*>(data), count * sizeof(T));
    if (const auto found = uploaded.find(key); found != uploaded.end())
      return static_cast<const T*>(found->second);
    DeviceBuffer<unsigned char> b(count * sizeof(T));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(b.data(), data, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    const void* p = b.data();
    uploads.push_back(std::move(b));
    uploaded.emplace(key, p);
    return static_cast<const T*>(p);
  }

  template <bool Profile, bool Ordered>
  static auto kernel() {
    return &detail::pipeline_kernel<P, Profile, Ordered>;
  }

  template <bool Profile, bool Ordered>
  void launch(const detail::KernelArgs<P>& args) {
    detail::pipeline_kernel<P, Profile, Ordered><<<blocks, detail::lanes, dynamic_bytes, stream>>>(args);
    SEXTANT_CUDA_CHECK_LAUNCH();
  }

  // Blocks per launch for the kernel variant `k`: as many as are resident at once, at most
  // policy::gpu_max_blocks_per_sm per SM.
  template <class K>
  int resident_blocks(K k) const {
    if (dynamic_bytes > 48 * 1024)
      SEXTANT_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(dynamic_bytes)));
    int per_sm = 0;
    SEXTANT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, k, static_cast<int>(detail::lanes), dynamic_bytes));
    int sms = 0;
    SEXTANT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal));
    if (per_sm < 1)
      throw Error(ErrorKind::resource, "gpu" + std::to_string(ordinal) + ": a pipeline replica needs " +
                                           std::to_string(dynamic_bytes) +
                                           " bytes of shared memory per block; none fits");
    int blocks = std::max(1, std::min(per_sm, policy::gpu_max_blocks_per_sm) * sms);
    if (!shared_queues && options.layout.arena_bytes > 0) {
      // Queues in global memory take at most a quarter of what is free.
      std::size_t free_bytes = 0, total_bytes = 0;
      SEXTANT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const std::size_t fit = free_bytes / 4 / options.layout.arena_bytes;
      if (fit < 1)
        throw Error(ErrorKind::resource, "gpu" + std::to_string(ordinal) + ": one replica's queues (" +
                                             std::to_string(options.layout.arena_bytes) +
                                             " bytes) exceed a quarter of the free memory");
      blocks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(blocks), fit));
    }
    return blocks;
  }
};

template <PipelineType P>
PipelineGpu<P>::PipelineGpu(int ordinal, const Instance<P>& instance, const ReplicaOptions& options)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.ordinal = ordinal;
  st.options = options;
  st.host = instance;
  const ReplicaLayout& l = options.layout;
  if (l.nodes != P::size || l.width != detail::lanes)
    throw Error::internal("PipelineGpu: a layout for another pipeline or another vector width");
  const PipelineShape shape = shape_of<P>(instance.params);
  st.names = shape.names;
  st.limits = shape.gain_limits;
  ScopedDevice device(ordinal);
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking));
  const auto up = [&st]<class T>(const T* data, std::size_t count) { return st.upload(data, count); };
  for_each_node<P>([&]<std::size_t I>() {
    st.device_params.template get<I>() = params_to_device(instance.params.template get<I>(), up);
  });
  // Shared memory: the states first when small, then the queues when they fit too.
  int optin = 0;
  SEXTANT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  const std::size_t static_bytes = sizeof(detail::BlockShared) + 4096;  // BlockShared, the scan's storage
  const std::size_t limit = std::min<std::size_t>(
      policy::gpu_shared_queue_bytes, optin > static_cast<int>(static_bytes) ? optin - static_bytes : 0);
  st.shared_states = sizeof(typename P::States) <= policy::gpu_shared_state_bytes;
  st.state_bytes = st.shared_states ? (sizeof(typename P::States) + 15) / 16 * 16 : 0;
  st.shared_queues = st.state_bytes + l.arena_bytes <= limit;
  st.dynamic_bytes = st.state_bytes + (st.shared_queues ? l.arena_bytes : 0);
  // Every variant launches with the same number of blocks: the smallest residency of the ones used.
  st.blocks = std::min({st.resident_blocks(State::template kernel<false, false>()),
                        st.resident_blocks(State::template kernel<false, true>()),
                        st.resident_blocks(State::template kernel<true, false>()),
                        st.resident_blocks(State::template kernel<true, true>())});
  if (!st.shared_queues)
    st.queues = DeviceBuffer<std::byte>(static_cast<std::size_t>(st.blocks) * l.arena_bytes);
  if (!st.shared_states) st.states = DeviceBuffer<typename P::States>(static_cast<std::size_t>(st.blocks));
  st.status = DeviceBuffer<detail::ChunkStatus>(1);
  SEXTANT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&st.host_status), sizeof(detail::ChunkStatus)));
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(st.stream));
}

template <PipelineType P>
PipelineGpu<P>::~PipelineGpu() {
  if (state_) {
    cudaSetDevice(state_->ordinal);
    state_.reset();
  }
}

template <PipelineType P>
PipelineGpu<P>::PipelineGpu(PipelineGpu&&) noexcept = default;
template <PipelineType P>
PipelineGpu<P>& PipelineGpu<P>::operator=(PipelineGpu&&) noexcept = default;

template <PipelineType P>
int PipelineGpu<P>::blocks() const noexcept {
  return state_->blocks;
}

template <PipelineType P>
bool PipelineGpu<P>::shared_queues() const noexcept {
  return state_->shared_queues;
}

template <PipelineType P>
void PipelineGpu<P>::run(std::uint64_t begin, std::uint64_t end, ChunkOutput<Output>& out) {
  State& st = *state_;
  if (end < begin || end > st.host.sources.count)
    throw Error::internal("PipelineGpu::run: chunk outside the source");
  if (out.counters.nodes.size() < P::size) out.counters.nodes.resize(P::size);
  ++out.counters.chunks;
  if (end == begin) return;
  ScopedDevice device(st.ordinal);
  const std::uint64_t n = end - begin;
  detail::KernelArgs<P> args{};
  args.params = st.device_params;
  args.source_items = nullptr;
  if (st.host.sources.items != nullptr) {
    if (st.source_items.size() < n) st.source_items = DeviceBuffer<typename P::Input>(n);
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(st.source_items.data(), st.host.sources.items + begin,
                                       n * sizeof(typename P::Input), cudaMemcpyHostToDevice, st.stream));
    args.source_items = st.source_items.data();
  }
  args.begin = begin;
  args.end = end;
  args.claim = detail::claim_size(n, st.blocks);
  detail::ChunkStatus* const status = st.status.data();
  args.next = &status->next;
  args.layout = st.options.layout;
  args.queues = st.shared_queues ? nullptr : st.queues.data();
  args.states = st.shared_states ? nullptr : st.states.data();
  args.state_bytes = st.state_bytes;
  args.collect = st.options.collect;
  args.out_count = &status->out_count;
  args.error = &status->error;
  args.counters = &status->counters;
  const bool ordered = st.options.ordered;
  const bool profile = st.options.profile;
  std::uint64_t capacity = 0;
  if (st.options.collect)
    capacity = std::max<std::uint64_t>(
        1024, static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * st.outputs_per_source * 1.25)));
  unsigned long long produced = 0;
  while (true) {
    if (st.options.collect && st.out_items.size() < capacity) {
      st.out_items = DeviceBuffer<typename P::Output>();
      st.out_items = DeviceBuffer<typename P::Output>(capacity);
      if (ordered) {
        st.out_tags = DeviceBuffer<std::uint32_t>();
        st.out_tags = DeviceBuffer<std::uint32_t>(capacity);
      }
    }
    if (ordered && st.options.collect && st.out_tags.size() < st.out_items.size())
      st.out_tags = DeviceBuffer<std::uint32_t>(st.out_items.size());
    args.out_items = st.out_items.data();
    args.out_tags = st.out_tags.data();
    args.out_capacity = st.options.collect ? st.out_items.size() : 0;
    SEXTANT_CUDA_CHECK(cudaMemsetAsync(status, 0, sizeof(detail::ChunkStatus), st.stream));
    if (profile) {
      if (ordered)
        st.template launch<true, true>(args);
      else
        st.template launch<true, false>(args);
    } else {
      if (ordered)
        st.template launch<false, true>(args);
      else
        st.template launch<false, false>(args);
    }
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(st.host_status, status, sizeof(detail::ChunkStatus),
                                       cudaMemcpyDeviceToHost, st.stream));
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(st.stream));
    produced = st.host_status->out_count;
    const unsigned error = st.host_status->error;
    if (error != 0) {
      const std::size_t node = error & 0xffffU;
      const std::string where = "pipeline node " + std::to_string(node + 1) + " (" + st.names.at(node) + ")";
      if ((error >> 16) == detail::error_exact)
        throw Error(ErrorKind::bad_input,
                    where + " pushed other than exactly " + std::to_string(st.limits.at(node)) +
                        " outputs for one input (on gpu" + std::to_string(st.ordinal) + ")");
      throw Error(ErrorKind::bad_input,
                  where + " pushed more than its gain limit of " + std::to_string(st.limits.at(node)) +
                      " outputs for one input (on gpu" + std::to_string(st.ordinal) + ")");
    }
    if (!st.options.collect || produced <= st.out_items.size()) break;
    capacity = produced + produced / 8 + 1024;  // the count is known now: run the chunk again
  }
  st.outputs_per_source = std::max(0.01, static_cast<double>(produced) / static_cast<double>(n));
  out.count += produced;
  if (st.options.collect && produced > 0) {
    std::vector<typename P::Output> items(produced);
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(items.data(), st.out_items.data(),
                                       produced * sizeof(typename P::Output), cudaMemcpyDeviceToHost,
                                       st.stream));
    std::vector<std::uint32_t> tags;
    if (ordered) {
      tags.resize(produced);
      SEXTANT_CUDA_CHECK(cudaMemcpyAsync(tags.data(), st.out_tags.data(), produced * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost, st.stream));
    }
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(st.stream));
    if (ordered) {
      // A stable counting sort by claim: a claim's items come from one block, in slot order.
      const std::uint32_t claims = static_cast<std::uint32_t>((n + args.claim - 1) / args.claim);
      std::vector<std::uint64_t> start(claims + 1, 0);
      for (const std::uint32_t t : tags) {
        if (t >= claims)
          throw Error::internal("PipelineGpu: an output tagged with a claim outside the chunk");
        ++start[t + 1];
      }
      for (std::uint32_t c = 0; c < claims; ++c) start[c + 1] += start[c];
      const std::size_t first = out.items.size();
      out.items.resize(first + produced);
      for (std::size_t i = 0; i < produced; ++i) out.items[first + start[tags[i]]++] = items[i];
    } else {
      out.items.insert(out.items.end(), items.begin(), items.end());
    }
  }
  const detail::DeviceCounters& c = st.host_status->counters;  // the last launch's
  out.counters.switches += c.switches;
  out.counters.firings += c.firings;
  if (profile)
    for (std::size_t i = 0; i < P::size; ++i) {
      NodeCounters& nc = out.counters.nodes[i];
      nc.inputs += c.inputs[i];
      nc.outputs += c.outputs[i];
      nc.vectors += c.vectors[i];
      nc.full_vectors += c.full_vectors[i];
      nc.service += static_cast<double>(c.service[i]);
      nc.overhead += static_cast<double>(c.overhead[i]);
      if (nc.full_max_gain.size() < detail::bins) nc.full_max_gain.resize(detail::bins, 0);
      if (nc.any_max_gain.size() < detail::bins) nc.any_max_gain.resize(detail::bins, 0);
      for (unsigned b = 0; b < detail::bins; ++b) {
        nc.full_max_gain[b] += c.full_hist[i][b];
        nc.any_max_gain[b] += c.any_hist[i][b];
      }
    }
}

}  // namespace sextant::pipeline::gpu
