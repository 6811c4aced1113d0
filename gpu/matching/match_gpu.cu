// The CCM hook's CUDA side (gpu/matching/match_gpu.hpp describes the design).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"
#include "gpu/matching/match_gpu.hpp"
#include "templates/matching/matching_policy.hpp"
#include "templates/matching/page_eval.hpp"

namespace sextant::matching::gpu {

namespace {

using sextant::gpu::DeviceBuffer;
using sextant::gpu::ScopedDevice;

constexpr std::uint32_t full_mask = 0xFFFFFFFFu;
constexpr std::uint32_t warps_per_block = policy::Gpu::block_threads / 32;
// 64-bit words before a range's bitmaps in its results: as 32-bit counters, [0] pairs written for
// the current shard, [1] hits found, [2] the most pairs a selection round needed.
constexpr std::uint32_t counter_words = 2;

// ---- kernels ------------------------------------------------------------------------------

// The pair index q < k (k - 1) / 2 as (i, j), i < j < k.
__device__ inline void pair_of(std::uint32_t q, std::uint32_t k, std::uint32_t& i, std::uint32_t& j) {
  i = 0;
  while (q >= k - 1 - i) {
    q -= k - 1 - i;
    ++i;
  }
  j = i + 1 + q;
}

// Pages of `key`'s chain.
__device__ inline std::uint32_t chain_length(const ShardView& t, PageId p) {
  std::uint32_t n = 0;
  for (; p != no_page; p = t.pages[p].next) ++n;
  return n;
}

// A warp per event: the first page of every key the event's names select (its single names and
// name pairs, or, for events with very many names, every key of the table whose names it holds);
// the chains' pages are appended to `pairs` with one atomicAdd per warp and round.
// counters[0]: pairs written so far; counters[2]: the most pairs any round needed.
__device__ void select_pages_body(const ShardView& t, const EventsView& ev, std::uint32_t e, uint2* pairs,
                                  std::uint32_t capacity, std::uint32_t* counters) {
  const std::uint32_t lane = threadIdx.x % 32;
  if (e >= ev.size || t.key_count == 0) return;  // warp-uniform
  const std::uint32_t first = ev.name_begin[e];
  const std::uint32_t k = ev.name_begin[e + 1] - first;
  const bool probe = k < policy::pair_probe_names;
  const std::uint64_t rounds_total = probe ? k + std::uint64_t{k} * (k - 1) / 2 : t.key_mask + 1;
  for (std::uint64_t base = 0; base < rounds_total; base += 32) {
    const std::uint64_t idx = base + lane;
    PageId p = no_page;
    if (idx < rounds_total) {
      if (probe) {
        std::uint64_t key;
        if (idx < k) {
          key = single_key(ev.names[first + idx]);
        } else {
          std::uint32_t i = 0, j = 0;
          pair_of(static_cast<std::uint32_t>(idx - k), k, i, j);
          key = pair_key(ev.names[first + i], ev.names[first + j]);
        }
        p = find_key(t, key);
      } else {
        const KeySlot slot = t.keys[idx];
        if (slot.key != empty_key && holds_name(ev, e, key_first(slot.key)) &&
            (key_second(slot.key) == no_name || holds_name(ev, e, key_second(slot.key))))
          p = slot.first;
      }
    }
    const std::uint32_t n = chain_length(t, p);
    std::uint32_t before = n;  // inclusive scan over the warp
    for (std::uint32_t d = 1; d < 32; d *= 2) {
      const std::uint32_t v = __shfl_up_sync(full_mask, before, d);
      if (lane >= d) before += v;
    }
    const std::uint32_t total = __shfl_sync(full_mask, before, 31);
    if (total == 0) continue;
    std::uint32_t at = 0;
    if (lane == 31) {
      at = atomicAdd(&counters[0], total);
      atomicMax(&counters[2], at + total);
    }
    at = __shfl_sync(full_mask, at, 31) + before - n;
    for (; p != no_page; p = t.pages[p].next, ++at)
      if (at < capacity) pairs[at] = make_uint2(e, p);
  }
}

// A warp per (event, page): the Bloom scan (two signatures per lane, one ballot each), then one
// lane per surviving filter counts its constraints filter-major (page_eval.hpp, the host's code),
// stopping at the first unsatisfied one.
// Warp `warp` of `warps` takes pairs warp, warp + warps, ...
__device__ void match_pairs_body(const ShardView& t, const EventsView& ev, std::uint32_t warp,
                                 std::uint32_t warps, const uint2* pairs, std::uint32_t capacity,
                                 const std::uint32_t* counters, unsigned long long* bitmaps,
                                 std::uint32_t words, bool want_filters, uint4* hits,
                                 std::uint32_t hit_capacity, std::uint32_t* hit_count, std::uint32_t shard) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t pair_count = min(counters[0], capacity);
  for (std::uint32_t w = warp; w < pair_count; w += warps) {
    const uint2 pair = pairs[w];
    const std::uint32_t e = pair.x;
    const PageId p = pair.y;
    const std::uint32_t count = t.pages[p].count;
    const std::uint64_t have = ev.bloom[e];
    const std::uint64_t at = static_cast<std::uint64_t>(p) * policy::page_filters;
    const bool low = lane < count && (t.filter_bloom[at + lane] & ~have) == 0;
    const bool high = lane + 32 < count && (t.filter_bloom[at + lane + 32] & ~have) == 0;
    const std::uint64_t survivors =
        __ballot_sync(full_mask, low) | (static_cast<std::uint64_t>(__ballot_sync(full_mask, high)) << 32);
    if (survivors == 0) continue;
    const std::uint32_t n = __popcll(survivors);
    const std::uint32_t entries = t.pages[p].entries_begin;
    for (std::uint32_t r = lane; r < n; r += 32) {
      std::uint64_t s = survivors;
      for (std::uint32_t skip = 0; skip < r; ++skip) s &= s - 1;
      const std::uint32_t f = __ffsll(static_cast<long long>(s)) - 1;
      const std::uint32_t first = t.filter_first[at + f], size = t.filter_size[at + f];
      std::uint32_t satisfied = 0;
      while (satisfied < size &&
             entry_satisfied(t, entries + t.entry_order[entries + first + satisfied], ev, e))
        ++satisfied;
      if (satisfied != size) continue;
      const std::uint32_t d = t.filter_interface[at + f];
      atomicOr(&bitmaps[static_cast<std::uint64_t>(e) * words + d / 64], 1ull << (d % 64));
      if (want_filters) {
        const std::uint32_t h = atomicAdd(hit_count, 1u);
        if (h < hit_capacity) hits[h] = make_uint4(e, t.filter_slot[at + f], shard, 0);
      }
    }
  }
}

__global__ void select_pages(ShardView t, EventsView ev, uint2* pairs, std::uint32_t capacity,
                             std::uint32_t* counters) {
  select_pages_body(t, ev, blockIdx.x * warps_per_block + threadIdx.x / 32, pairs, capacity, counters);
}

__global__ void match_pairs(ShardView t, EventsView ev, const uint2* pairs, std::uint32_t capacity,
                            const std::uint32_t* counters, unsigned long long* bitmaps, std::uint32_t words,
                            bool want_filters, uint4* hits, std::uint32_t hit_capacity,
                            std::uint32_t* hit_count, std::uint32_t shard) {
  match_pairs_body(t, ev, blockIdx.x * warps_per_block + threadIdx.x / 32, gridDim.x * warps_per_block, pairs,
                   capacity, counters, bitmaps, words, want_filters, hits, hit_capacity, hit_count, shard);
}

// Where a staged range's columns lie in its upload, in bytes from the upload's start.
struct StagedOffsets {
  std::uint32_t n, name_begin, names, group_begin, groups, a, b, bloom, strings;
};

// The view of a staged range whose upload lies at `d`.
__host__ __device__ inline EventsView staged_view(const StagedOffsets& o, const char* d) {
  EventsView v;
  v.size = o.n;
  v.name_begin = reinterpret_cast<const std::uint32_t*>(d + o.name_begin);
  v.names = reinterpret_cast<const NameId*>(d + o.names);
  v.group_begin = reinterpret_cast<const std::uint32_t*>(d + o.group_begin);
  v.groups = reinterpret_cast<const EventGroup*>(d + o.groups);
  v.value_a = reinterpret_cast<const std::uint64_t*>(d + o.a);
  v.value_b = reinterpret_cast<const std::uint64_t*>(d + o.b);
  v.bloom = reinterpret_cast<const std::uint64_t*>(d + o.bloom);
  v.strings = d + o.strings;
  return v;
}

constexpr std::uint32_t small_threads = policy::Gpu::small_range_events * 32;

// A small range in one block, with no copy before or after it. The block reads the range's staged
// upload (`in_chunks` 16-byte chunks) from page-locked memory into shared memory, a warp per event
// selects its pages, then every warp takes pairs. The counters and bitmaps stay in shared memory
// and go straight to the page-locked `out` at the end (counter words, then the bitmaps).
__global__ void __launch_bounds__(small_threads, 1)
    match_small_range(ShardView t, const uint4* in, std::uint32_t in_chunks, StagedOffsets at, uint2* pairs,
                      std::uint32_t capacity, std::uint32_t words, bool want_filters, uint4* hits,
                      std::uint32_t hit_capacity, std::uint32_t shard, unsigned long long* out) {
  extern __shared__ uint4 small_shared[];
  const std::uint32_t result_words = counter_words + policy::Gpu::small_range_events * words;
  auto* const results = reinterpret_cast<unsigned long long*>(small_shared);
  uint4* const events = small_shared + (result_words + 1) / 2;
  for (std::uint32_t i = threadIdx.x; i < in_chunks; i += blockDim.x) events[i] = in[i];
  for (std::uint32_t i = threadIdx.x; i < result_words; i += blockDim.x) results[i] = 0;
  __syncthreads();
  auto* const counters = reinterpret_cast<std::uint32_t*>(results);
  const EventsView ev = staged_view(at, reinterpret_cast<const char*>(events));
  const std::uint32_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
  select_pages_body(t, ev, warp, pairs, capacity, counters);
  __syncthreads();
  match_pairs_body(t, ev, warp, warps, pairs, capacity, counters, results + counter_words, words,
                   want_filters, hits, hit_capacity, counters + 1, shard);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < result_words; i += blockDim.x) out[i] = results[i];
}

// One block per record: copies a delta's bytes from the staging buffer into a device array.
struct Scatter {
  std::uint32_t array;
  std::uint32_t reserved;
  std::uint64_t offset;  // bytes into the array
  std::uint64_t bytes;
  std::uint64_t from;  // bytes into the payload
};
constexpr int scatter_arrays = 15;
struct ArrayBases {
  char* base[scatter_arrays];
};

__global__ void scatter(const Scatter* records, const char* payload, ArrayBases arrays) {
  const Scatter r = records[blockIdx.x];
  char* to = arrays.base[r.array] + r.offset;
  const char* from = payload + r.from;
  for (std::uint64_t i = threadIdx.x; i < r.bytes; i += blockDim.x) to[i] = from[i];
}

// ---- host side ----------------------------------------------------------------------------

// Page-locked host memory, grown on demand (contents not kept).
template <class T = char>
class Pinned {
 public:
  Pinned() = default;
  ~Pinned() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  T* reserve(std::size_t count) {
    if (count > capacity_) {
      if (data_ != nullptr) cudaFreeHost(data_);
      data_ = nullptr;
      capacity_ = std::max(count, capacity_ * 2);
      SEXTANT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), capacity_ * sizeof(T)));
    }
    return data_;
  }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

template <class T>
void grow(DeviceBuffer<T>& b, std::size_t count) {
  if (b.size() < count) b = DeviceBuffer<T>(std::max<std::size_t>(count + count / 4, 64));
}

// A buffer's size as the kernels' 32-bit capacities.
template <class T>
std::uint32_t capacity32(const DeviceBuffer<T>& b) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(b.size(), 0xFFFFFFFFu));
}

template <class T>
void upload(DeviceBuffer<T>& to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count > 0)
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(to.data(), from, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

// One shard's tables in device memory: the host's pools (same offsets), so a page's delta lands
// where it lies on the host.
struct DeviceShard {
  std::uint32_t shard = 0;
  bool loaded = false;
  std::uint64_t epoch = 0;
  std::size_t strings_synced = 0;
  std::uint64_t key_mask = 0, key_count = 0;
  std::size_t pages = 0, rows = 0, entries = 0;  // host pool sizes at the last sync
  DeviceBuffer<KeySlot> keys;
  DeviceBuffer<PageMeta> page_meta;
  DeviceBuffer<std::uint64_t> filter_bloom;
  DeviceBuffer<std::uint32_t> filter_size, filter_interface, filter_first;
  DeviceBuffer<FilterSlot> filter_slot;
  DeviceBuffer<RowMeta> row_meta;
  DeviceBuffer<std::uint8_t> entry_code, entry_filter;
  DeviceBuffer<NameId> entry_name;
  DeviceBuffer<std::uint32_t> entry_order;
  DeviceBuffer<std::uint64_t> entry_a, entry_b;
  DeviceBuffer<char> strings;

  ShardView view() const {
    ShardView v;
    v.keys = keys.data();
    v.key_mask = key_mask;
    v.key_count = key_count;
    v.pages = page_meta.data();
    v.filter_bloom = filter_bloom.data();
    v.filter_size = filter_size.data();
    v.filter_interface = filter_interface.data();
    v.filter_slot = filter_slot.data();
    v.filter_first = filter_first.data();
    v.rows = row_meta.data();
    v.entry_code = entry_code.data();
    v.entry_filter = entry_filter.data();
    v.entry_name = entry_name.data();
    v.entry_a = entry_a.data();
    v.entry_b = entry_b.data();
    v.entry_order = entry_order.data();
    v.strings = strings.data();
    return v;
  }
  std::size_t bytes() const {
    return keys.size() * sizeof(KeySlot) + page_meta.size() * sizeof(PageMeta) + filter_bloom.size() * 8 +
           (filter_size.size() + filter_interface.size() + filter_first.size() + filter_slot.size()) * 4 +
           row_meta.size() * sizeof(RowMeta) + entry_code.size() * 2 +
           (entry_name.size() + entry_order.size()) * 4 + (entry_a.size() + entry_b.size()) * 8 +
           strings.size();
  }
  // Whether the device pools still hold what the host's grew to.
  bool fits(const Shard& s) const {
    return s.key_capacity() == key_mask + 1 && s.page_capacity() <= page_meta.size() &&
           s.row_pool() <= row_meta.size() && s.entry_pool() <= entry_code.size() &&
           s.string_bytes() <= strings.size();
  }
};

}  // namespace

class MatchGpu::Impl {
 public:
  explicit Impl(int ordinal) : ordinal_(ordinal) {
    ScopedDevice device(ordinal_);
    SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    cudaDeviceProp prop{};
    SEXTANT_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal_));
    match_blocks_ = static_cast<std::uint32_t>(prop.multiProcessorCount) * 8;
  }
  ~Impl() {
    if (stream_ != nullptr) {
      ScopedDevice device(ordinal_);
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
    }
  }

  void sync(const MatchTables& tables, std::span<const std::uint32_t> shards) {
    ScopedDevice device(ordinal_);
    if (copies_.size() != shards.size() ||
        !std::equal(shards.begin(), shards.end(), copies_.begin(),
                    [](std::uint32_t s, const DeviceShard& c) { return s == c.shard; })) {
      copies_.clear();
      copies_.resize(shards.size());
      for (std::size_t i = 0; i < shards.size(); ++i) copies_[i].shard = shards[i];
    }
    for (DeviceShard& copy : copies_) {
      const Shard& s = tables.shard(copy.shard);
      if (!copy.loaded || copy.epoch != s.changes().epoch || !copy.fits(s))
        full_upload(copy, s);
      else
        delta_upload(copy, s);
    }
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    tables_ = &tables;
  }

  void match(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end, std::vector<FilterHit>& hits) {
    if (batch.tables != tables_)
      throw Error::internal("matching GPU hook: a batch without a sync of its tables");
    if (begin >= end) return;
    ScopedDevice device(ordinal_);
    if (match_small(batch, begin, end, hits)) return;
    const EventsView events = stage_events(batch.events, begin, end);
    const std::uint32_t n = end - begin;
    const std::size_t words = batch.words;
    // The counters and the bitmaps share one buffer: one memset and one copy back per range.
    const std::size_t result_words = counter_words + static_cast<std::size_t>(n) * words;
    grow(results_, result_words);
    std::uint64_t* const host = host_results_.reserve(result_words);
    auto* const counters = reinterpret_cast<std::uint32_t*>(results_.data());
    auto* const bitmaps = reinterpret_cast<unsigned long long*>(results_.data() + counter_words);
    grow(pairs_, static_cast<std::size_t>(n) * policy::Gpu::initial_pairs_per_event);
    if (batch.want_filters) grow(hits_, static_cast<std::size_t>(n) * policy::Gpu::initial_hits_per_event);
    while (true) {
      SEXTANT_CUDA_CHECK(cudaMemsetAsync(results_.data(), 0, result_words * 8, stream_));
      const std::uint32_t pair_capacity = capacity32(pairs_);
      const std::uint32_t hit_capacity = capacity32(hits_);
      for (std::size_t i = 0; i < copies_.size(); ++i) {
        if (i > 0)  // the pair count restarts per shard
          SEXTANT_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(std::uint32_t), stream_));
        const ShardView t = copies_[i].view();
        select_pages<<<(n + warps_per_block - 1) / warps_per_block, policy::Gpu::block_threads, 0, stream_>>>(
            t, events, pairs_.data(), pair_capacity, counters);
        SEXTANT_CUDA_CHECK_LAUNCH();
        match_pairs<<<match_blocks_, policy::Gpu::block_threads, 0, stream_>>>(
            t, events, pairs_.data(), pair_capacity, counters, bitmaps, batch.words, batch.want_filters,
            hits_.data(), hit_capacity, counters + 1, copies_[i].shard);
        SEXTANT_CUDA_CHECK_LAUNCH();
      }
      SEXTANT_CUDA_CHECK(
          cudaMemcpyAsync(host, results_.data(), result_words * 8, cudaMemcpyDeviceToHost, stream_));
      SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (!ran_short(reinterpret_cast<const std::uint32_t*>(host), pair_capacity, hit_capacity, batch, begin,
                     hits))
        break;
    }
    or_bitmaps(batch, begin, n, host + counter_words);
  }

  // A range of at most policy::Gpu::small_range_events events against one shard, whose staged
  // events fit policy::Gpu::small_range_bytes and whose counters and bitmaps fit
  // small_result_bytes: one kernel that reads the events from and writes the results to page-locked
  // memory, and one synchronisation. The general path's six steps (upload, clear, two kernels,
  // copy back, synchronisation) cost a launch or a transfer each, and a single event's latency is
  // little else.
  bool match_small(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end,
                   std::vector<FilterHit>& hits) {
    const std::uint32_t n = end - begin;
    const std::size_t words = batch.words;
    const std::size_t result_words = counter_words + std::size_t{policy::Gpu::small_range_events} * words;
    if (n > policy::Gpu::small_range_events || copies_.size() != 1 ||
        result_words * 8 > policy::Gpu::small_result_bytes)
      return false;
    const Staged l = layout(batch.events, begin, end);
    if (l.total > policy::Gpu::small_range_bytes) return false;
    grow(pairs_, std::size_t{policy::Gpu::small_range_events} * policy::Gpu::initial_pairs_per_event);
    if (batch.want_filters)
      grow(hits_, std::size_t{policy::Gpu::small_range_events} * policy::Gpu::initial_hits_per_event);
    char* const in = small_in_.reserve(policy::Gpu::small_range_bytes);
    write_staged(l, batch.events, begin, in);
    std::uint64_t* const out = small_out_.reserve(result_words);
    const std::size_t shared = (result_words + 1) / 2 * 16 + l.total;
    while (true) {
      const std::uint32_t pair_capacity = capacity32(pairs_);
      const std::uint32_t hit_capacity = capacity32(hits_);
      match_small_range<<<1, small_threads, shared, stream_>>>(
          copies_[0].view(), reinterpret_cast<const uint4*>(in), static_cast<std::uint32_t>(l.total / 16),
          l.offsets(), pairs_.data(), pair_capacity, static_cast<std::uint32_t>(words), batch.want_filters,
          hits_.data(), hit_capacity, copies_[0].shard, reinterpret_cast<unsigned long long*>(out));
      SEXTANT_CUDA_CHECK_LAUNCH();
      SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));
      // The events are still staged: a range that ran short runs again as it is.
      if (!ran_short(reinterpret_cast<const std::uint32_t*>(out), pair_capacity, hit_capacity, batch, begin,
                     hits))
        break;
    }
    or_bitmaps(batch, begin, n, out + counter_words);
    ++uploads_.small_ranges;
    return true;
  }

  // After a range ran, from its counters: whether a buffer was too small for it (rare: more pages
  // or hits than the buffer holds), then grown to what it needed for the range to run again; else
  // the range's hits are taken.
  bool ran_short(const std::uint32_t* counters, std::uint32_t pair_capacity, std::uint32_t hit_capacity,
                 const MatchBatch& batch, std::uint32_t begin, std::vector<FilterHit>& hits) {
    const std::uint32_t needed_pairs = counters[2], found_hits = counters[1];
    if (needed_pairs > pair_capacity) {
      grow(pairs_, needed_pairs);
      return true;
    }
    if (batch.want_filters && found_hits > hit_capacity) {
      grow(hits_, found_hits);
      return true;
    }
    if (batch.want_filters) take_hits(found_hits, begin, hits);
    return false;
  }

  // The range's matched filters (found_hits of them in hits_), with event indices of the batch.
  void take_hits(std::uint32_t found_hits, std::uint32_t begin, std::vector<FilterHit>& hits) {
    if (found_hits == 0) return;
    host_hits_.resize(found_hits);
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(host_hits_.data(), hits_.data(), found_hits * sizeof(uint4),
                                       cudaMemcpyDeviceToHost, stream_));
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (const uint4& h : host_hits_) hits.push_back({h.x + begin, h.z, h.y});
  }

  // Partitioned filters: other GPUs OR into the same words at the same time.
  static void or_bitmaps(const MatchBatch& batch, std::uint32_t begin, std::uint32_t n,
                         const std::uint64_t* found) {
    const std::size_t words = batch.words;
    std::uint64_t* out = batch.bitmaps + static_cast<std::uint64_t>(begin) * words;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n) * words; ++i)
      if (found[i] != 0) std::atomic_ref<std::uint64_t>(out[i]).fetch_or(found[i]);
  }

  int ordinal() const noexcept { return ordinal_; }
  std::size_t table_bytes() const noexcept {
    std::size_t b = 0;
    for (const DeviceShard& c : copies_) b += c.bytes();
    return b;
  }
  Uploads uploads() const noexcept { return uploads_; }

 private:
  void full_upload(DeviceShard& c, const Shard& s) {
    const ShardView h = s.view();
    c.keys = DeviceBuffer<KeySlot>(s.key_capacity());
    upload(c.keys, h.keys, s.key_capacity(), stream_);
    const std::size_t pages = s.page_capacity(), blocks = pages * policy::page_filters;
    grow(c.page_meta, pages);
    grow(c.filter_bloom, blocks);
    grow(c.filter_size, blocks);
    grow(c.filter_interface, blocks);
    grow(c.filter_slot, blocks);
    grow(c.filter_first, blocks);
    upload(c.page_meta, h.pages, pages, stream_);
    upload(c.filter_bloom, h.filter_bloom, blocks, stream_);
    upload(c.filter_size, h.filter_size, blocks, stream_);
    upload(c.filter_interface, h.filter_interface, blocks, stream_);
    upload(c.filter_slot, h.filter_slot, blocks, stream_);
    upload(c.filter_first, h.filter_first, blocks, stream_);
    grow(c.row_meta, s.row_pool());
    upload(c.row_meta, h.rows, s.row_pool(), stream_);
    const std::size_t e = s.entry_pool();
    grow(c.entry_code, e);
    grow(c.entry_filter, e);
    grow(c.entry_name, e);
    grow(c.entry_order, e);
    grow(c.entry_a, e);
    grow(c.entry_b, e);
    upload(c.entry_code, h.entry_code, e, stream_);
    upload(c.entry_filter, h.entry_filter, e, stream_);
    upload(c.entry_name, h.entry_name, e, stream_);
    upload(c.entry_order, h.entry_order, e, stream_);
    upload(c.entry_a, h.entry_a, e, stream_);
    upload(c.entry_b, h.entry_b, e, stream_);
    grow(c.strings, std::max<std::size_t>(s.string_bytes(), 1));
    upload(c.strings, h.strings, s.string_bytes(), stream_);
    c.key_mask = s.key_capacity() - 1;
    c.key_count = s.keys();
    c.strings_synced = s.string_bytes();
    c.epoch = s.changes().epoch;
    c.loaded = true;
    ++uploads_.full;
  }

  // The logged pages and key slots, packed into one upload and scattered by one kernel.
  void delta_upload(DeviceShard& c, const Shard& s) {
    const ShardChanges& log = s.changes();
    c.key_count = s.keys();
    if (log.pages.empty() && log.key_slots.empty() && s.string_bytes() == c.strings_synced) return;
    const ShardView h = s.view();
    std::vector<PageId> pages(log.pages.begin(), log.pages.end());
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    records_.clear();
    std::size_t payload = 0;
    const auto add = [&](std::uint32_t array, const void* base, std::size_t element, std::size_t first,
                         std::size_t count) {
      if (count == 0) return;
      records_.push_back({array, 0, first * element, count * element, payload});
      sources_.push_back(static_cast<const char*>(base) + first * element);
      payload += (count * element + 15) / 16 * 16;
    };
    sources_.clear();
    for (const PageId p : pages) {
      const PageMeta& m = h.pages[p];
      const std::size_t b = static_cast<std::size_t>(p) * policy::page_filters;
      add(0, h.pages, sizeof(PageMeta), p, 1);
      add(1, h.filter_bloom, 8, b, m.count);
      add(2, h.filter_size, 4, b, m.count);
      add(3, h.filter_interface, 4, b, m.count);
      add(4, h.filter_slot, 4, b, m.count);
      add(5, h.filter_first, 4, b, m.count);
      add(6, h.rows, sizeof(RowMeta), m.rows_begin, m.rows_count);
      add(7, h.entry_code, 1, m.entries_begin, m.entries_count);
      add(8, h.entry_filter, 1, m.entries_begin, m.entries_count);
      add(9, h.entry_name, 4, m.entries_begin, m.entries_count);
      add(10, h.entry_order, 4, m.entries_begin, m.entries_count);
      add(11, h.entry_a, 8, m.entries_begin, m.entries_count);
      add(12, h.entry_b, 8, m.entries_begin, m.entries_count);
    }
    for (const std::uint64_t k : log.key_slots) add(13, h.keys, sizeof(KeySlot), k, 1);
    add(14, h.strings, 1, c.strings_synced, s.string_bytes() - c.strings_synced);
    if (records_.empty()) return;
    const std::size_t record_bytes = records_.size() * sizeof(Scatter);
    // The staging buffer and delta_ are shared by the shards' uploads: the previous shard's copy out
    // of the (pinned) staging buffer and its scatter out of delta_ must be done before they are
    // rewritten or reallocated.
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    char* staging = staging_.reserve(record_bytes + payload);
    std::memcpy(staging, records_.data(), record_bytes);
    for (std::size_t r = 0; r < records_.size(); ++r)
      std::memcpy(staging + record_bytes + records_[r].from, sources_[r], records_[r].bytes);
    grow(delta_, record_bytes + payload);
    SEXTANT_CUDA_CHECK(
        cudaMemcpyAsync(delta_.data(), staging, record_bytes + payload, cudaMemcpyHostToDevice, stream_));
    ArrayBases bases{};
    char* const targets[scatter_arrays] = {
        reinterpret_cast<char*>(c.page_meta.data()),    reinterpret_cast<char*>(c.filter_bloom.data()),
        reinterpret_cast<char*>(c.filter_size.data()),  reinterpret_cast<char*>(c.filter_interface.data()),
        reinterpret_cast<char*>(c.filter_slot.data()),  reinterpret_cast<char*>(c.filter_first.data()),
        reinterpret_cast<char*>(c.row_meta.data()),     reinterpret_cast<char*>(c.entry_code.data()),
        reinterpret_cast<char*>(c.entry_filter.data()), reinterpret_cast<char*>(c.entry_name.data()),
        reinterpret_cast<char*>(c.entry_order.data()),  reinterpret_cast<char*>(c.entry_a.data()),
        reinterpret_cast<char*>(c.entry_b.data()),      reinterpret_cast<char*>(c.keys.data()),
        reinterpret_cast<char*>(c.strings.data())};
    std::copy(std::begin(targets), std::end(targets), bases.base);
    scatter<<<static_cast<unsigned>(records_.size()), 128, 0, stream_>>>(
        reinterpret_cast<const Scatter*>(delta_.data()), delta_.data() + record_bytes, bases);
    SEXTANT_CUDA_CHECK_LAUNCH();
    c.strings_synced = s.string_bytes();
    ++uploads_.deltas;
    uploads_.delta_bytes += record_bytes + payload;
  }

  // Where a staged range's columns lie in its upload (bytes from its start), and the bytes of
  // string values it refers to.
  struct Staged {
    std::uint32_t n = 0, name0 = 0, names = 0, group0 = 0, groups = 0, attr0 = 0, attrs = 0;
    std::uint64_t lo = 0, hi = 0;
    bool strings = false;
    std::size_t o_name_begin = 0, o_names = 0, o_group_begin = 0, o_groups = 0, o_a = 0, o_b = 0, o_bloom = 0,
                o_strings = 0, total = 0;
    StagedOffsets offsets() const {
      const auto u = [](std::size_t x) { return static_cast<std::uint32_t>(x); };
      return {n,      u(o_name_begin), u(o_names), u(o_group_begin), u(o_groups),
              u(o_a), u(o_b),          u(o_bloom), u(o_strings)};
    }
  };

  static std::size_t align16(std::size_t x) { return (x + 15) / 16 * 16; }

  static Staged layout(const EventsView& ev, std::uint32_t begin, std::uint32_t end) {
    Staged l;
    l.n = end - begin;
    l.name0 = ev.name_begin[begin];
    l.names = ev.name_begin[end] - l.name0;
    l.group0 = ev.group_begin[begin];
    l.groups = ev.group_begin[end] - l.group0;
    if (l.groups > 0) {
      const EventGroup& last = ev.groups[l.group0 + l.groups - 1];
      l.attr0 = ev.groups[l.group0].begin;
      l.attrs = last.begin + last.count - l.attr0;
    }
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
    for (std::uint32_t g = l.group0; g < l.group0 + l.groups; ++g) {
      if (static_cast<TypeClass>(ev.groups[g].cls) != TypeClass::string) continue;
      l.strings = true;
      for (std::uint32_t a = ev.groups[g].begin; a < ev.groups[g].begin + ev.groups[g].count; ++a) {
        lo = std::min(lo, ev.value_a[a]);
        hi = std::max(hi, ev.value_a[a] + ev.value_b[a]);
      }
    }
    if (lo > hi) lo = hi = 0;
    l.lo = lo;
    l.hi = hi;
    l.o_names = align16(l.o_name_begin + (l.n + 1) * 4);
    l.o_group_begin = align16(l.o_names + l.names * 4);
    l.o_groups = align16(l.o_group_begin + (l.n + 1) * 4);
    l.o_a = align16(l.o_groups + l.groups * sizeof(EventGroup));
    l.o_b = align16(l.o_a + l.attrs * 8);
    l.o_bloom = align16(l.o_b + l.attrs * 8);
    l.o_strings = align16(l.o_bloom + l.n * 8);
    l.total = align16(l.o_strings + (hi - lo) + 1);
    return l;
  }

  // The range's upload written to `s`: offsets rebased to the range, string values cut to the
  // bytes it refers to.
  static void write_staged(const Staged& l, const EventsView& ev, std::uint32_t begin, char* s) {
    auto* name_begin = reinterpret_cast<std::uint32_t*>(s + l.o_name_begin);
    for (std::uint32_t i = 0; i <= l.n; ++i) name_begin[i] = ev.name_begin[begin + i] - l.name0;
    std::memcpy(s + l.o_names, ev.names + l.name0, l.names * 4);
    auto* group_begin = reinterpret_cast<std::uint32_t*>(s + l.o_group_begin);
    for (std::uint32_t i = 0; i <= l.n; ++i) group_begin[i] = ev.group_begin[begin + i] - l.group0;
    auto* group = reinterpret_cast<EventGroup*>(s + l.o_groups);
    for (std::uint32_t g = 0; g < l.groups; ++g) {
      group[g] = ev.groups[l.group0 + g];
      group[g].begin -= l.attr0;
    }
    auto* a = reinterpret_cast<std::uint64_t*>(s + l.o_a);
    std::memcpy(a, ev.value_a + l.attr0, l.attrs * 8);
    std::memcpy(s + l.o_b, ev.value_b + l.attr0, l.attrs * 8);
    for (std::uint32_t g = 0; g < l.groups; ++g)
      if (static_cast<TypeClass>(group[g].cls) == TypeClass::string)
        for (std::uint32_t k = group[g].begin; k < group[g].begin + group[g].count; ++k) a[k] -= l.lo;
    std::memcpy(s + l.o_bloom, ev.bloom + begin, l.n * 8);
    if (l.hi > l.lo) std::memcpy(s + l.o_strings, ev.strings + l.lo, l.hi - l.lo);
  }

  // Events [begin, end) of the prepared batch: straight from page-locked columns where it may,
  // else in one staged upload.
  EventsView stage_events(const EventsView& ev, std::uint32_t begin, std::uint32_t end) {
    const Staged l = layout(ev, begin, end);
    grow(events_, l.total);
    char* d = events_.data();
    EventsView v = staged_view(l.offsets(), d);
    // A range without strings in page-locked columns, from min_direct_events on: each column
    // copied as it is. Its offsets stay absolute (name_begin, group_begin, the groups' first
    // attributes), so the view's names, groups and values point at their uploads less the range's
    // first name, group and attribute.
    if (!l.strings && l.n >= policy::Gpu::min_direct_events &&
        page_locked({ev.name_begin, ev.names, ev.group_begin, ev.groups, ev.value_a, ev.value_b, ev.bloom})) {
      const std::pair<const void*, std::size_t> columns[] = {
          {ev.name_begin + begin, (l.n + 1) * 4},
          {ev.names + l.name0, l.names * 4},
          {ev.group_begin + begin, (l.n + 1) * 4},
          {ev.groups + l.group0, l.groups * sizeof(EventGroup)},
          {ev.value_a + l.attr0, l.attrs * 8},
          {ev.value_b + l.attr0, l.attrs * 8},
          {ev.bloom + begin, l.n * 8}};
      const std::size_t offsets[] = {l.o_name_begin, l.o_names, l.o_group_begin, l.o_groups,
                                     l.o_a,          l.o_b,     l.o_bloom};
      for (std::size_t c = 0; c < std::size(columns); ++c)
        if (columns[c].second > 0)
          SEXTANT_CUDA_CHECK(cudaMemcpyAsync(d + offsets[c], columns[c].first, columns[c].second,
                                             cudaMemcpyHostToDevice, stream_));
      v.names = indexed_from<NameId>(d + l.o_names, l.name0);
      v.groups = indexed_from<EventGroup>(d + l.o_groups, l.group0);
      v.value_a = indexed_from<std::uint64_t>(d + l.o_a, l.attr0);
      v.value_b = indexed_from<std::uint64_t>(d + l.o_b, l.attr0);
      ++uploads_.direct_batches;
      return v;
    }
    char* s = events_staging_.reserve(l.total);
    write_staged(l, ev, begin, s);
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(d, s, l.total, cudaMemcpyHostToDevice, stream_));
    return v;
  }

  // A device array whose element `first` lies at `at`, to be indexed with absolute offsets (only
  // at first and beyond). Integer arithmetic: the address before `at` is never a C++ pointer.
  template <class T>
  static const T* indexed_from(const char* at, std::uint32_t first) {
    return reinterpret_cast<const T*>(reinterpret_cast<std::uintptr_t>(at) -
                                      std::uintptr_t{first} * sizeof(T));
  }

  // Whether every non-null pointer lies in page-locked host memory.
  static bool page_locked(std::initializer_list<const void*> pointers) {
    for (const void* p : pointers) {
      if (p == nullptr) continue;
      cudaPointerAttributes a{};
      if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
      }
      if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
  }

  int ordinal_;
  cudaStream_t stream_ = nullptr;
  std::uint32_t match_blocks_ = 1;
  const MatchTables* tables_ = nullptr;
  std::vector<DeviceShard> copies_;
  DeviceBuffer<std::uint64_t> results_;
  Pinned<std::uint64_t> host_results_;
  DeviceBuffer<char> events_;
  Pinned<> events_staging_;
  // Small ranges: their staged events and their results, page-locked, read and written by the
  // kernel.
  Pinned<> small_in_;
  Pinned<std::uint64_t> small_out_;
  DeviceBuffer<uint2> pairs_;
  DeviceBuffer<uint4> hits_;
  std::vector<uint4> host_hits_;
  std::vector<Scatter> records_;
  std::vector<const char*> sources_;
  Pinned<> staging_;
  DeviceBuffer<char> delta_;
  Uploads uploads_;
};

bool MatchGpu::can_run() {
  return sextant::gpu::device_count() > 0;
}

MatchGpu::MatchGpu(int ordinal) : impl_(std::make_unique<Impl>(ordinal)) {}
MatchGpu::~MatchGpu() = default;
MatchGpu::MatchGpu(MatchGpu&&) noexcept = default;
MatchGpu& MatchGpu::operator=(MatchGpu&&) noexcept = default;

void MatchGpu::sync(const MatchTables& tables, std::span<const std::uint32_t> shards) {
  impl_->sync(tables, shards);
}
void MatchGpu::match(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end,
                     std::vector<FilterHit>& hits) {
  impl_->match(batch, begin, end, hits);
}
int MatchGpu::ordinal() const noexcept {
  return impl_->ordinal();
}
std::size_t MatchGpu::table_bytes() const noexcept {
  return impl_->table_bytes();
}
MatchGpu::Uploads MatchGpu::uploads() const noexcept {
  return impl_->uploads();
}

}  // namespace sextant::matching::gpu
