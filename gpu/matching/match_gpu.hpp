// The CCM specialisation of the matching hook (paper 002, section 3.3), redesigned for today's
// GPUs. Plain C++: no CUDA header here (gpu/matching/match_gpu.cu holds the kernels).
//
// * The tables live in the GPU's memory as the same pools as on the host (table_view.hpp): a
//   copy per shard the GPU holds, kept up to date in place with the tables' delta (the pages and
//   key slots logged since the last batch, packed into one upload and scattered by a kernel; a
//   full upload only after a pool compaction or growth of the key table, i.e. amortised).
// * A batch (an event range of a prepared batch) goes up in one copy from a staging buffer, or,
//   for a whole batch without strings whose columns lie in page-locked memory (the Matcher puts
//   them there when a GPU matches), straight from its columns; a selection kernel (a warp
//   per event) probes the keys of the event's names and name pairs in the device hash table and
//   lists the (event, page) pairs; a match kernel (a warp per pair) runs the Bloom scan over the
//   page's 64 signatures (two per lane, one ballot), and each surviving filter is counted by one
//   lane, filter-major, stopping at its first unsatisfied constraint. A complete filter ORs its
//   interface's bit into the event's bitmap (atomicOr: several pairs of an event run at once) and,
//   on request, appends its slot to the hit list (atomicAdd): the only atomics. Counters are lane
//   registers (any filter size, no 255 limit, no race). The bitmaps and hits come back once per
//   range: no per-event round trip.
// * A range of a few events (one event in latency mode) is one kernel of one block instead: it
//   reads the staged events from page-locked memory and writes its counters and bitmaps back there,
//   so a single event costs one launch and one synchronisation.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "templates/matching/hooks.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::matching::gpu {

class MatchGpu {
 public:
  static constexpr std::string_view name = "cuda";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  // A CUDA device is present (the build has CUDA: this file is only built then).
  static bool can_run();

  explicit MatchGpu(int ordinal = 0);
  ~MatchGpu();
  MatchGpu(MatchGpu&&) noexcept;
  MatchGpu& operator=(MatchGpu&&) noexcept;

  // Brings this GPU's copy of `shards` up to date with the tables (SyncedMatchHook).
  void sync(const MatchTables& tables, std::span<const std::uint32_t> shards);
  // Events [begin, end) of the batch against the shards of the last sync (MatchHook); ORs the
  // interface bits into batch.bitmaps atomically.
  void match(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end, std::vector<FilterHit>& hits);

  int ordinal() const noexcept;
  // Bytes of device memory the copy of the tables takes.
  std::size_t table_bytes() const noexcept;
  // Uploads so far: full copies of a shard, and delta uploads with their bytes (tests, reports).
  struct Uploads {
    std::uint64_t full = 0;
    std::uint64_t deltas = 0;
    std::uint64_t delta_bytes = 0;
    std::uint64_t direct_batches = 0;  // event ranges copied straight from page-locked columns
    std::uint64_t small_ranges = 0;    // ranges matched by the one-kernel path for a few events
  };
  Uploads uploads() const noexcept;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

static_assert(SyncedMatchHook<MatchGpu>);

}  // namespace sextant::matching::gpu
