// The tile kernel of COOP-OPT and of REDUCED-PREFIX's slicing step. A persistent grid: each
// block walks tiles of `tile` consecutive values (blockIdx.x, + gridDim.x, ...), the bulk-copy
// engine streaming the next tile into shared memory while the current one is processed.
//
// Slice hook (the paper's read-compress): each thread takes a run of consecutive staged
// values (nine 16-byte shared-memory loads, conflict-free because nine is odd), reduces it in
// registers chunk by chunk, stores the chunks that start and end in its run, and combines the
// parts of chunks cut by run edges (a warp-level segmented reduction, then shared atomics).
// Three expand hooks follow (TileMode):
//   * coop (COOP-OPT): every window touching the tile gets its part of the tile: summed
//     directly from the chunks when q is small, else by van Herk / Gil-Werman over the tile's
//     chunks in shared memory (segmented prefix and suffix scans over blocks of q chunks);
//     windows inside the tile are stored, windows crossing a tile edge combined atomically
//     (the caller set them to the identity).
//   * partials (REDUCED-PREFIX with CUB): the tile's share of C[j] and A[j] goes to global
//     memory, stored when the chunk lies inside the tile, combined atomically otherwise.
//   * local_prefix (REDUCED-PREFIX with a scan of tile totals): each tile writes its total and
//     the running total inside the tile at every chunk start (and at every head end when
//     r > 0); CUB then scans the tile totals only, and a last kernel finishes the windows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <cub/block/block_scan.cuh>
#include <type_traits>

#include "gpu/window/common_kernels.cuh"
#include "gpu/window/device_atomics.cuh"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/chunk_geometry.hpp"
#include "templates/window/tile_layout.hpp"

namespace sextant::window::gpu::detail {

enum class TileMode { coop, partials, local_prefix };

using policy::coop_direct_chunks;
using policy::tile_vectors_per_thread;

struct TileParams {
  ChunkGeometry g;
  TileLayout layout;
  std::uint64_t tiles = 0;
  std::uint32_t head_shift = 0;  // values between the 16-byte boundary below `in` and `in`
  // local_prefix mode: per-tile totals, running totals inside the tile at chunk starts
  // (g.chunks entries) and at head ends (K entries, only when r > 0).
  void* tile_total = nullptr;
  void* local_start = nullptr;
  void* local_end = nullptr;
};

// ---- the bulk-copy engine and its mbarriers (sm_90) -------------------------------------

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barrier_init(std::uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}
__device__ __forceinline__ void barrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void barrier_expect(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, std::uint32_t bytes,
                                          std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(dst)),
      "l"(src), "r"(bytes), "r"(shared_address(bar))
      : "memory");
}
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred ready;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n"
      "@!ready bra WAIT;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
}
// Orders this thread's ordinary shared-memory accesses before later bulk copies into them.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Values [t0, t1) of a tile; staged[i - t0 + head_shift] holds value i.
struct TileSpan {
  std::uint64_t t0, t1;
};
__device__ __forceinline__ TileSpan tile_span(std::uint64_t tile, const TileParams& p) {
  const std::uint64_t t0 = tile * p.layout.tile;
  return {t0, min(t0 + p.layout.tile, p.g.used)};
}

// Thread 0: the aligned 16-byte vectors of the tile, by one bulk copy completing on `bar`.
template <class T>
__device__ __forceinline__ void issue_tile(const T* in, std::uint64_t tile, unsigned char* stage,
                                           std::uint64_t* bar, const TileParams& p) {
  constexpr std::uint32_t per_vector = 16 / sizeof(T);
  const TileSpan s = tile_span(tile, p);
  const std::uint32_t h = p.head_shift;
  const std::uint64_t nvec = (h + (s.t1 - s.t0)) / per_vector;
  const std::uint64_t first = h > 0 ? 1 : 0;  // vector 0 starts before t0 when h > 0
  const auto bytes = static_cast<std::uint32_t>(nvec > first ? (nvec - first) * 16 : 0);
  barrier_expect(bar, bytes);
  if (bytes != 0)
    bulk_copy(stage + first * 16,
              reinterpret_cast<const unsigned char*>(in + s.t0) - h * sizeof(T) + first * 16, bytes, bar);
}

// The values of partial vectors at both ends, which the bulk copy leaves out.
template <class T>
__device__ __forceinline__ void load_tile_ends(const T* __restrict__ in, T* staged, TileSpan s,
                                               std::uint32_t h) {
  constexpr std::uint32_t per_vector = 16 / sizeof(T);
  const std::uint64_t nvec = (h + (s.t1 - s.t0)) / per_vector;
  const std::uint64_t head_end = h > 0 ? min(s.t0 + (per_vector - h), s.t1) : s.t0;
  const std::uint64_t tail_begin = max(head_end, s.t0 - h + nvec * per_vector);
  const std::uint64_t head_count = head_end - s.t0, tail_count = s.t1 - tail_begin;
  if (threadIdx.x < head_count + tail_count) {
    const std::uint64_t i =
        threadIdx.x < head_count ? s.t0 + threadIdx.x : tail_begin + (threadIdx.x - head_count);
    staged[i - s.t0 + h] = in[i];
  }
}

// ---- the slice hook -------------------------------------------------------------------

template <class Agg>
struct ChunkPart {
  typename Agg::Acc full;
  typename Agg::Acc head;
  std::uint32_t chunk;  // local chunk index
  bool valid;
};

// The parts of the tile's chunks into full[slot(jl)] / head[slot(jl)] (identity on entry).
template <class Agg, bool HasFull, bool HasHead>
__device__ __forceinline__ void slice_runs(const typename Agg::Input* staged, typename Agg::Acc* full,
                                           typename Agg::Acc* head, TileSpan s, std::uint64_t j0,
                                           const TileParams& p) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  constexpr std::uint32_t run = tile_values_per_thread(sizeof(T));
  constexpr std::uint32_t per_vector = 16 / sizeof(T);
  const TileLayout& l = p.layout;
  const std::uint64_t slide = p.g.slide, rest = p.g.rest;
  const std::uint32_t h = p.head_shift;
  const std::uint32_t index = threadIdx.x * run;  // staged[index] is value t0 - h + index
  const std::uint64_t staged_count = (s.t1 - s.t0) + h;
  const std::uint32_t lo = index < h ? h - index : 0;
  const std::uint32_t hi =
      staged_count > index ? static_cast<std::uint32_t>(min(std::uint64_t{run}, staged_count - index)) : 0;

  ChunkPart<Agg> first{Agg::identity(), Agg::identity(), 0, false};  // begins before the run
  ChunkPart<Agg> last{Agg::identity(), Agg::identity(), 0, false};   // ends after the run
  if (lo < hi) {
    T v[run];
    const uint4* vec = reinterpret_cast<const uint4*>(staged) + threadIdx.x * tile_vectors_per_thread;
#pragma unroll
    for (std::uint32_t u = 0; u < tile_vectors_per_thread; ++u) {
      const uint4 x = vec[u];
      std::memcpy(v + u * per_vector, &x, 16);
    }
    const std::uint64_t pos = s.t0 - h + index + lo;
    const std::uint64_t j = pos / slide;
    const std::uint64_t off = pos - j * slide;
    auto chunk = static_cast<std::uint32_t>(j - j0);
    // Countdowns to the chunk's end and to the end of its head, clamped to 32 bits.
    const std::uint32_t full_count = static_cast<std::uint32_t>(min(slide, std::uint64_t{run} + 1));
    const std::uint32_t head_count = static_cast<std::uint32_t>(min(rest, std::uint64_t{run} + 1));
    std::uint32_t left = static_cast<std::uint32_t>(min(slide - off, std::uint64_t{run} + 1));
    std::uint32_t head_left =
        off < rest ? static_cast<std::uint32_t>(min(rest - off, std::uint64_t{run} + 1)) : 0;
    bool from_start = off == 0;  // the open segment began at its chunk's first value
    bool open = false;
    Acc acc_full = Agg::identity(), acc_head = Agg::identity();
    // Every run but those at the tile's ends is whole: a copy of the loop without bounds.
    const auto values = [&](auto checked) {
#pragma unroll
      for (std::uint32_t u = 0; u < run; ++u) {
        if (!decltype(checked)::value || (u >= lo && u < hi)) {
          const Acc x = Agg::lift(v[u]);
          if constexpr (HasFull) acc_full = Agg::combine(acc_full, x);
          if constexpr (HasHead) {
            if (head_left != 0) {
              acc_head = Agg::combine(acc_head, x);
              --head_left;
            }
          }
          open = true;
          if (--left == 0) {  // the chunk ends here
            if (from_start) {
              const std::uint32_t slot = l.slot(chunk);
              if constexpr (HasFull) full[slot] = acc_full;
              if constexpr (HasHead) head[slot] = acc_head;
            } else {
              first = {acc_full, acc_head, chunk, true};
            }
            ++chunk;
            acc_full = Agg::identity();
            acc_head = Agg::identity();
            left = full_count;
            head_left = head_count;
            from_start = true;
            open = false;
          }
        }
      }
    };
    if (lo == 0 && hi == run)
      values(std::false_type{});
    else
      values(std::true_type{});
    if (open) {
      if (from_start)
        last = {acc_full, acc_head, chunk, true};
      else
        first = {acc_full, acc_head, chunk, true};
    }
  }
  // Parts of a chunk that continue from earlier runs sit in consecutive lanes: reduce them
  // per warp (segmented suffix scan by chunk), so that a long chunk costs one atomic per warp.
  const std::uint32_t lane = threadIdx.x & 31;
  std::uint32_t id = first.valid ? first.chunk : 0xFFFFFFFFu - lane;
  Acc part_full = first.full, part_head = first.head;
#pragma unroll
  for (std::uint32_t d = 1; d < 32; d <<= 1) {
    const std::uint32_t other = __shfl_down_sync(0xffffffffu, id, d);
    const Acc other_full = HasFull ? __shfl_down_sync(0xffffffffu, part_full, d) : part_full;
    const Acc other_head = HasHead ? __shfl_down_sync(0xffffffffu, part_head, d) : part_head;
    if (lane + d < 32 && other == id) {
      if constexpr (HasFull) part_full = Agg::combine(part_full, other_full);
      if constexpr (HasHead) part_head = Agg::combine(part_head, other_head);
    }
  }
  const std::uint32_t previous = __shfl_up_sync(0xffffffffu, id, 1);
  if (first.valid && (lane == 0 || previous != id)) {
    const std::uint32_t slot = l.slot(first.chunk);
    if constexpr (HasFull) atomic_combine<Agg>(full + slot, part_full);
    if constexpr (HasHead) atomic_combine<Agg>(head + slot, part_head);
  }
  if (last.valid) {
    const std::uint32_t slot = l.slot(last.chunk);
    if constexpr (HasFull) atomic_combine<Agg>(full + slot, last.full);
    if constexpr (HasHead) atomic_combine<Agg>(head + slot, last.head);
  }
  // With an unaligned input the runs cover [t0 - h, t0 - h + tile): the tile's last h values
  // are left over, one atomic each.
  const std::uint64_t covered = s.t0 - h + l.tile;
  if (threadIdx.x == 0 && covered < s.t1) {
    for (std::uint64_t i = covered; i < s.t1; ++i) {
      const std::uint64_t j = i / slide, off = i - j * slide;
      const Acc x = Agg::lift(staged[i - s.t0 + h]);
      const std::uint32_t slot = l.slot(static_cast<std::uint32_t>(j - j0));
      if constexpr (HasFull) atomic_combine<Agg>(full + slot, x);
      if constexpr (HasHead) {
        if (off < rest) atomic_combine<Agg>(head + slot, x);
      }
    }
  }
}

// ---- the expand hooks -------------------------------------------------------------------

template <class Agg>
struct SegmentPair {
  typename Agg::Acc value;
  int starts;
};

template <class Agg>
struct SegmentOp {
  __device__ __forceinline__ SegmentPair<Agg> operator()(const SegmentPair<Agg>& a,
                                                         const SegmentPair<Agg>& b) const {
    return {b.starts ? b.value : Agg::combine(a.value, b.value), a.starts | b.starts};
  }
};

// out[slot(i)] = combine of in[slot(.)] over the part of i's segment up to i (forward) or from
// i (reverse); segments are [m*q, (m+1)*q) clipped to [0, count). `out` may be `in`.
template <class Agg>
__device__ __forceinline__ void segmented_scan(const typename Agg::Acc* in, typename Agg::Acc* out,
                                               std::uint32_t count, std::uint64_t q, bool reverse,
                                               const TileLayout& l, void* scratch) {
  using Acc = typename Agg::Acc;
  using Scan = cub::BlockScan<SegmentPair<Agg>, block_threads, cub::BLOCK_SCAN_WARP_SCANS>;
  static_assert(sizeof(typename Scan::TempStorage) <= tile_scan_scratch_bytes, "scan scratch too small");
  const std::uint32_t per_thread = (count + block_threads - 1) / block_threads;
  const std::uint32_t begin = threadIdx.x * per_thread;
  const std::uint32_t end = min(begin + per_thread, count);
  const auto period = static_cast<std::uint32_t>(q < count ? q : count + 1);
  const auto index = [&](std::uint32_t s) { return reverse ? count - 1 - s : s; };
  const std::uint32_t phase0 = begin < end ? index(begin) % period : 0;
  const auto starts = [&](std::uint32_t i, std::uint32_t phase) {
    return reverse ? (i == count - 1 || phase == period - 1) : phase == 0;
  };
  const auto advance = [&](std::uint32_t& phase) {
    if (reverse)
      phase = phase == 0 ? period - 1 : phase - 1;
    else
      phase = phase + 1 == period ? 0 : phase + 1;
  };
  SegmentPair<Agg> mine{Agg::identity(), 0};
  std::uint32_t phase = phase0;
  for (std::uint32_t s = begin; s < end; ++s) {
    const std::uint32_t i = index(s);
    if (starts(i, phase)) mine = {Agg::identity(), 1};
    mine.value = Agg::combine(mine.value, in[l.slot(i)]);
    advance(phase);
  }
  SegmentPair<Agg> carry;
  Scan(*reinterpret_cast<typename Scan::TempStorage*>(scratch))
      .ExclusiveScan(mine, carry, SegmentPair<Agg>{Agg::identity(), 0}, SegmentOp<Agg>{});
  Acc acc = carry.value;
  phase = phase0;
  for (std::uint32_t s = begin; s < end; ++s) {
    const std::uint32_t i = index(s);
    if (starts(i, phase)) acc = Agg::identity();
    acc = Agg::combine(acc, in[l.slot(i)]);
    out[l.slot(i)] = acc;
    advance(phase);
  }
}

// COOP-OPT: every window touching the tile gets the tile's part of it.
template <class Agg, bool HasHead>
__device__ __forceinline__ void expand_windows(typename Agg::Acc* full, typename Agg::Acc* head,
                                               typename Agg::Acc* suf, typename Agg::Acc* __restrict__ out,
                                               TileSpan s, std::uint64_t j0, std::uint32_t chunks,
                                               std::uint64_t k_lo, std::uint64_t k_hi, void* scratch,
                                               const TileParams& p) {
  using Acc = typename Agg::Acc;
  const ChunkGeometry& g = p.g;
  const TileLayout& l = p.layout;
  const std::uint64_t q = g.full_chunks;
  const bool direct = q <= coop_direct_chunks;
  if (!direct) {
    segmented_scan<Agg>(full, suf, chunks, q, /*reverse=*/true, l, scratch);
    __syncthreads();
    segmented_scan<Agg>(full, full, chunks, q, /*reverse=*/false, l, scratch);
    __syncthreads();
  }
  const Acc* pre = full;
  const auto count = static_cast<std::int64_t>(chunks);
  const auto qi = static_cast<std::int64_t>(q);
  for (std::uint64_t k = k_lo + threadIdx.x; k <= k_hi; k += block_threads) {
    const std::int64_t ls = static_cast<std::int64_t>(k) - static_cast<std::int64_t>(j0);
    Acc v;
    if (q == 0) {
      v = head[l.slot(static_cast<std::uint32_t>(ls))];
    } else if (direct) {
      v = Agg::identity();
      const std::int64_t first = ls < 0 ? 0 : ls, last = min(ls + qi - 1, count - 1);
      for (std::int64_t c = first; c <= last; ++c)
        v = Agg::combine(v, full[l.slot(static_cast<std::uint32_t>(c))]);
      if constexpr (HasHead) {
        const std::int64_t a = ls + qi;
        if (a >= 0 && a < count) v = Agg::combine(v, head[l.slot(static_cast<std::uint32_t>(a))]);
      }
    } else {
      const std::int64_t e = ls + qi - 1;  // the window's last whole chunk, local
      if (ls < 0) {
        v = e < 0 ? Agg::identity() : pre[l.slot(static_cast<std::uint32_t>(e < count ? e : count - 1))];
      } else if (e >= count) {
        const std::int64_t block_end = ls / qi * qi + qi - 1;
        v = suf[l.slot(static_cast<std::uint32_t>(ls))];
        if (block_end < count - 1)
          v = Agg::combine(v, suf[l.slot(static_cast<std::uint32_t>(block_end + 1))]);
      } else if (ls % qi == 0) {
        v = suf[l.slot(static_cast<std::uint32_t>(ls))];
      } else {
        v = Agg::combine(suf[l.slot(static_cast<std::uint32_t>(ls))],
                         pre[l.slot(static_cast<std::uint32_t>(e))]);
      }
      if constexpr (HasHead) {
        const std::int64_t a = ls + qi;
        if (a >= 0 && a < count) v = Agg::combine(v, head[l.slot(static_cast<std::uint32_t>(a))]);
      }
    }
    if (g.window_inside(k, s.t0, s.t1))
      out[k] = v;
    else
      atomic_combine<Agg>(out + k, v);
  }
}

// REDUCED-PREFIX: the tile's share of C[j] and A[j] to global memory.
template <class Agg, bool HasFull, bool HasHead>
__device__ __forceinline__ void store_partials(const typename Agg::Acc* full, const typename Agg::Acc* head,
                                               typename Agg::Acc* __restrict__ full_out,
                                               typename Agg::Acc* __restrict__ head_out, TileSpan s,
                                               std::uint64_t j0, std::uint32_t chunks, const TileParams& p) {
  const ChunkGeometry& g = p.g;
  const TileLayout& l = p.layout;
  for (std::uint32_t i = threadIdx.x; i < chunks; i += block_threads) {
    const std::uint64_t j = j0 + i;
    if (j >= g.chunks) break;
    const std::uint64_t cs = j * g.slide, ce = min(cs + g.read_length, g.used);
    if (ce <= s.t0) continue;  // chunk j0 may end before the tile
    const bool owned = cs >= s.t0 && ce <= s.t1;
    if constexpr (HasFull) {
      if (owned)
        full_out[j] = full[l.slot(i)];
      else
        atomic_combine<Agg>(full_out + j, full[l.slot(i)]);
    }
    if constexpr (HasHead) {
      if (owned)
        head_out[j] = head[l.slot(i)];
      else
        atomic_combine<Agg>(head_out + j, head[l.slot(i)]);
    }
  }
}

// REDUCED-PREFIX with a scan of tile totals: the exclusive running total of the tile's chunk
// parts, in place (full[slot(i)] = parts before local chunk i, full[slot(count)] = the total).
template <class Agg>
__device__ __forceinline__ typename Agg::Acc tile_exclusive_scan(typename Agg::Acc* full, std::uint32_t count,
                                                                 const TileLayout& l, void* scratch) {
  using Acc = typename Agg::Acc;
  using Scan = cub::BlockScan<Acc, block_threads, cub::BLOCK_SCAN_WARP_SCANS>;
  static_assert(sizeof(typename Scan::TempStorage) <= tile_scan_scratch_bytes, "scan scratch too small");
  const std::uint32_t per_thread = (count + block_threads - 1) / block_threads;
  const std::uint32_t begin = threadIdx.x * per_thread;
  const std::uint32_t end = min(begin + per_thread, count);
  Acc mine = Agg::identity();
  for (std::uint32_t i = begin; i < end; ++i) mine = Agg::combine(mine, full[l.slot(i)]);
  Acc before, total;
  Scan(*reinterpret_cast<typename Scan::TempStorage*>(scratch))
      .ExclusiveScan(
          mine, before, Agg::identity(), [](Acc a, Acc b) { return Agg::combine(a, b); }, total);
  for (std::uint32_t i = begin; i < end; ++i) {
    const Acc part = full[l.slot(i)];
    full[l.slot(i)] = before;
    before = Agg::combine(before, part);
  }
  if (threadIdx.x == 0) full[l.slot(count)] = total;
  return total;
}

// REDUCED-PREFIX with a scan of tile totals: the tile's total and its running totals at the
// chunk starts and head ends that lie in it.
template <class Agg, bool HasHead>
__device__ __forceinline__ void local_prefixes(typename Agg::Acc* full, const typename Agg::Acc* head,
                                               std::uint64_t tile, TileSpan s, std::uint64_t j0,
                                               std::uint32_t chunks, void* scratch, const TileParams& p) {
  using Acc = typename Agg::Acc;
  const ChunkGeometry& g = p.g;
  const TileLayout& l = p.layout;
  const Acc total = tile_exclusive_scan<Agg>(full, chunks, l, scratch);
  __syncthreads();
  if (threadIdx.x == 0) static_cast<Acc*>(p.tile_total)[tile] = total;
  auto* starts = static_cast<Acc*>(p.local_start);
  auto* ends = static_cast<Acc*>(p.local_end);
  for (std::uint32_t i = threadIdx.x; i < chunks; i += block_threads) {
    const std::uint64_t j = j0 + i;
    if (j >= g.chunks) break;
    const Acc before = full[l.slot(i)];
    if (j * g.slide >= s.t0) starts[j] = before;
    if constexpr (HasHead) {
      const std::uint64_t end = j * g.slide + g.rest;  // one past the head's last value
      if (j >= g.full_chunks && end > s.t0 && end <= s.t1)
        ends[j - g.full_chunks] = Agg::combine(before, head[l.slot(i)]);
    }
  }
}

// ---- the kernel -----------------------------------------------------------------------

// HasFull: q > 0 (C is needed); HasHead: r > 0 or q == 0 (A is needed).
template <class Agg, TileMode Mode, bool HasFull, bool HasHead>
__global__ void __launch_bounds__(block_threads, 3)
    tile_kernel(const typename Agg::Input* __restrict__ in, typename Agg::Acc* __restrict__ full_out,
                typename Agg::Acc* __restrict__ head_out, TileParams p) {
  using T = typename Agg::Input;
  using Acc = typename Agg::Acc;
  extern __shared__ __align__(128) unsigned char smem[];
  const TileLayout& l = p.layout;
  const ChunkGeometry& g = p.g;
  auto* bars = reinterpret_cast<std::uint64_t*>(smem + l.barrier_offset);
  auto* tickets = bars + 2;
  Acc* full = reinterpret_cast<Acc*>(smem + l.full_offset);
  Acc* head = reinterpret_cast<Acc*>(smem + l.head_offset);
  void* scratch = smem + l.scratch_offset;
  std::uint64_t next = 0;  // thread 0's claim of the following tile
  if (threadIdx.x == 0) {
    barrier_init(&bars[0]);
    barrier_init(&bars[1]);
    barrier_init_fence();
    const std::uint64_t first = blockIdx.x;
    tickets[0] = first;
    if (first < p.tiles) issue_tile(in, first, smem + l.stage_offset(0), &bars[0], p);
  }
  __syncthreads();
  for (std::uint32_t i = 0;; ++i) {
    const std::uint64_t tile = tickets[i & 1];
    if (tile >= p.tiles) break;
    const std::uint32_t stage = l.stages == 2 ? (i & 1) : 0;
    const std::uint32_t parity = (l.stages == 2 ? i >> 1 : i) & 1;
    if (threadIdx.x == 0) {
      next = tile + gridDim.x;
      tickets[(i + 1) & 1] = next;
      if (l.stages == 2 && next < p.tiles)
        issue_tile(in, next, smem + l.stage_offset(stage ^ 1), &bars[stage ^ 1], p);
    }
    T* staged = reinterpret_cast<T*>(smem + l.stage_offset(stage));
    const TileSpan s = tile_span(tile, p);
    load_tile_ends(in, staged, s, p.head_shift);
    barrier_wait(&bars[stage], parity);
    __syncthreads();

    const std::uint64_t k_lo = g.first_window_ending_after(s.t0);
    const std::uint64_t k_hi = g.last_window_starting_by(s.t1 - 1);
    if (k_lo <= k_hi) {  // else the tile lies in a gap between windows (S > W)
      const std::uint64_t j0 = s.t0 / g.slide;
      const auto chunks = static_cast<std::uint32_t>((s.t1 - 1) / g.slide - j0 + 1);
      for (std::uint32_t c = threadIdx.x; c < chunks; c += block_threads) {
        if constexpr (HasFull) full[l.slot(c)] = Agg::identity();
        if constexpr (HasHead) head[l.slot(c)] = Agg::identity();
      }
      __syncthreads();
      slice_runs<Agg, HasFull, HasHead>(staged, full, head, s, j0, p);
      __syncthreads();
      if constexpr (Mode == TileMode::coop) {
        Acc* suf = l.suffix_in_stage ? reinterpret_cast<Acc*>(staged)
                                     : reinterpret_cast<Acc*>(smem + l.suffix_offset);
        expand_windows<Agg, HasHead>(full, head, suf, full_out, s, j0, chunks, k_lo, k_hi, scratch, p);
      } else if constexpr (Mode == TileMode::partials) {
        store_partials<Agg, HasFull, HasHead>(full, head, full_out, head_out, s, j0, chunks, p);
      } else {
        local_prefixes<Agg, HasHead>(full, head, tile, s, j0, chunks, scratch, p);
      }
    }
    fence_proxy_async();  // the stage's ordinary writes (Suf) before the next bulk copy into it
    __syncthreads();
    if (l.stages == 1 && threadIdx.x == 0 && next < p.tiles) issue_tile(in, next, smem, &bars[0], p);
  }
}

// Host: grid and launch of the tile kernel for Agg (a persistent grid: as many blocks as fit).
template <class Agg, TileMode Mode>
void launch_tile_kernel(const typename Agg::Input* in, typename Agg::Acc* full_out,
                        typename Agg::Acc* head_out, const TileParams& p, int multiprocessors,
                        cudaStream_t stream) {
  const auto go = [&](auto kernel) {
    if (p.layout.total_bytes > 48 * 1024)
      SEXTANT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(p.layout.total_bytes)));
    int per_sm = 0;
    SEXTANT_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, p.layout.total_bytes));
    const std::uint64_t grid =
        std::min<std::uint64_t>(p.tiles, std::uint64_t(std::max(per_sm, 1)) * multiprocessors);
    kernel<<<static_cast<unsigned>(grid), block_threads, p.layout.total_bytes, stream>>>(in, full_out,
                                                                                         head_out, p);
    SEXTANT_CUDA_CHECK_LAUNCH();
  };
  const bool has_full = p.g.full_chunks > 0;
  const bool has_head = p.g.rest != 0 || !has_full;
  if (has_full && has_head)
    go(tile_kernel<Agg, Mode, true, true>);
  else if (has_full)
    go(tile_kernel<Agg, Mode, true, false>);
  else if constexpr (Mode == TileMode::coop || Mode == TileMode::partials)
    go(tile_kernel<Agg, Mode, false, true>);
  else  // with q = 0 the windows are the heads: there is nothing to scan
    throw Error::internal("REDUCED-PREFIX's prefix modes launched for S > W");
}

}  // namespace sextant::window::gpu::detail
