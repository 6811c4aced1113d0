// The CUDA specialisation of the stream-window template (paper 000, SPRINGALD): a pane stage
// (PLS) and a window stage (WLS) that keep their state in device memory. Plain C++: no CUDA
// header is needed to use it (pimpl; the built-in aggregates are instantiated in gpu/window).
//
//   StreamWindowOperator<GpuStreamBackend, SumAggregate<float>> op(options, {.device = 0});
//
// Pane stage, per push: the batch is cut into chunks of at most Config::max_batch tuples. Each
// chunk crosses PCIe once, projected (keys only when the batch has them, values only when the
// aggregate reads them, watermarks only when present) and double-buffered: chunk c+1 is copied
// on one stream while chunk c is aggregated on another. Batches in page-locked memory
// (gpu/pinned_memory.hpp) are copied directly; others go through pinned staging. On the GPU: a
// max-scan of the watermarks (lateness at each tuple's arrival), one pass that checks
// timestamps, drops late tuples, maps keys to dense slots (hash table) and packs (pane, slot)
// into 64-bit keys, a radix sort over only the bits in use, a reduce-by-key into pane partials,
// and a merge into the pending panes (kept sorted by (pane, slot): sparse, so time that jumps
// by 10^12 materialises nothing; closing panes is taking a prefix).
// Window stage, per release: a flat, pointer-less B-PAT over the round's closed panes plus the
// tail still needed (sorted by (slot, pane); levels stored contiguously, only levels up to
// log2(panes per window)), built nine levels per launch (each block a subtree in shared
// memory), then one thread per window that fires now, each computed with O(log w) combines.
// Every window that fires in a round is computed in parallel, so
// StreamWindowOptions::windows_per_tree does not apply here.
//
// Every push, release and advance is synchronous: results are in host memory when they return.
// Counts stay on the device where the host can do without them: a push waits for the device
// once (the per-tuple pass's statistics: bad tuples, new keys), a release that closes panes once
// (how many), a round of the window stage once per spec and once per slice of results; the
// merge into the pending panes is launched over an upper bound of the runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "gpu/pinned_memory.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_hooks.hpp"
#include "templates/window/stream_results.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::gpu {

// Host-to-device copy rate from page-locked memory on GPU `device`, in bytes per second: the
// median of `repeats` copies of `bytes` (benchmarks compare stream throughput with it).
double pinned_copy_rate(int device, std::size_t bytes, int repeats = 5);

}  // namespace sextant::gpu

namespace sextant::window {

// Closed panes handed from the pane stage to the window stage, in device memory (owned by the
// pane stage, valid until its next push). Within one slot, entries come in ascending pane order.
template <StreamAggregate A>
struct GpuClosedPanes {
  const std::uint32_t* slot = nullptr;  // dense key slot
  const std::int64_t* pane = nullptr;
  const Partial<A>* partial = nullptr;
  std::size_t count = 0;
  // Time windows: every pane below is closed for every key (INT64_MAX at end of stream).
  std::int64_t frontier = 0;
  // Count windows: tuples per slot so far (the slot's frontier is tuples / pane); else null.
  const std::int64_t* slot_tuples = nullptr;
  const std::uint32_t* slot_key = nullptr;  // slot -> key
  std::uint32_t slots = 0;                  // slots in use
};

template <StreamAggregate A>
class GpuPaneStage;
template <StreamAggregate A>
class GpuWindowStage;

struct GpuStreamBackend {
  struct Config {
    int device = 0;  // CUDA ordinal
    // Tuples per chunk at most. A push is cut into chunks (large pushes into at least four of
    // >= 2^20 tuples) that are copied and aggregated as a pipeline; device buffers hold two
    // chunks, about 100 bytes per tuple with every column, the sort and the partials. Pushes of
    // millions of tuples amortise the few synchronisations (tens of microseconds) of each push.
    std::size_t max_batch = std::size_t{1} << 22;
  };
  // argmin, argmax, first and last: the pane stage sorts tuple indices and lifts each tuple
  // with its timestamp.
  static constexpr bool lifts_with_context = true;
  template <StreamAggregate A>
  using PaneStage = GpuPaneStage<A>;
  template <StreamAggregate A>
  using WindowStage = GpuWindowStage<A>;
};

template <StreamAggregate A>
class GpuPaneStage {
 public:
  static constexpr std::string_view name = "gpu-pls";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  using ClosedPanes = GpuClosedPanes<A>;

  GpuPaneStage(const StreamGeometry& geometry, const GpuStreamBackend::Config& config);
  ~GpuPaneStage();
  GpuPaneStage(GpuPaneStage&&) noexcept;
  GpuPaneStage& operator=(GpuPaneStage&&) noexcept;

  void push(const StreamBatch<typename A::Input>& batch);
  void advance_watermark(std::int64_t wm);
  void release(ClosedPanes& closed);
  void release_all(ClosedPanes& closed);
  std::int64_t watermark() const;
  StreamCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

template <StreamAggregate A>
class GpuWindowStage {
 public:
  static constexpr std::string_view name = "gpu-bpat";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;

  GpuWindowStage(const StreamGeometry& geometry, const GpuStreamBackend::Config& config);
  ~GpuWindowStage();
  GpuWindowStage(GpuWindowStage&&) noexcept;
  GpuWindowStage& operator=(GpuWindowStage&&) noexcept;

  void advance(const GpuClosedPanes<A>& closed, WindowColumns<typename A::Output>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The built-in aggregates are compiled once, in gpu/window/stream_gpu_<aggregate>.cu. A user
// aggregate instantiates the stages in a .cu file that includes gpu/window/stream_gpu_impl.cuh.
#define SEXTANT_STREAM_GPU_FOR_VALUES(X, AGG) \
  X(AGG<std::int32_t>)                        \
  X(AGG<std::int64_t>)                        \
  X(AGG<float>)                               \
  X(AGG<double>)
#define SEXTANT_STREAM_GPU_EXTERN(A)     \
  extern template class GpuPaneStage<A>; \
  extern template class GpuWindowStage<A>;
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, SumAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, CountAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, MinAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, MaxAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, AvgAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, VarAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, ArgMinAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, ArgMaxAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, FirstAggregate)
SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_EXTERN, LastAggregate)
#undef SEXTANT_STREAM_GPU_EXTERN

}  // namespace sextant::window
