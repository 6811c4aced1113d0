// Every tuning number of the matching family in one place, read by the tables, the CPU kernels,
// the GPU kernels and the front door alike (their measurements: docs/PERFORMANCE.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sextant::matching::policy {

// Filters per page: a page's Bloom scan yields one 64-bit survivor mask, and a page's filter is
// named by a byte in its constraint rows.
inline constexpr std::uint32_t page_filters = 64;
// Bits a name sets in the 64-bit Bloom signatures of filters and events. One bit per name (the
// paper's choice) lets about 1/16 of the filters with one name outside an event of four names
// through; four bits let about 1/400 through and still leave an event of 20 names a useful test.
inline constexpr std::uint32_t bloom_bits_per_name = 4;
// Constraint slots and rows a new page's regions start with; they double when full.
inline constexpr std::uint32_t initial_page_entries = 32;
inline constexpr std::uint32_t initial_page_rows = 16;
// A pool (entries, rows, strings) is compacted when its garbage exceeds its live part and this
// many items: amortised O(1) per change.
inline constexpr std::uint64_t min_compaction_garbage = 4096;
// A page is counted row by row (the paper's counting) when more than 1 / row_counting_share of
// its filters survive the Bloom scan, else filter by filter through its filter-major index.
inline constexpr std::uint32_t row_counting_share = 4;
// An event with this many distinct known names or more scans the key table instead of probing
// every pair of its names (k (k - 1) / 2 probes).
inline constexpr std::uint32_t pair_probe_names = 64;

// Filters a Matcher's accepted changes may add or remove before they are applied; beyond it, add
// and remove wait for the running batch and apply the changes themselves (back pressure).
inline constexpr std::size_t max_pending_changes = 4096;

// Batches.
struct Batches {
  // Events per batch of the command line (--batch) and of the benchmarks' throughput mode.
  static constexpr std::size_t default_events = 4096;
  // The smallest chunk of events a CPU worker takes from a batch, and a GPU worker: a GPU's range
  // pays a fixed round trip (an upload, the launches, one copy back and a synchronisation) that
  // outweighs the kernels of a few thousand events, so it takes a default batch whole.
  static constexpr std::size_t min_cpu_chunk = 64;
  static constexpr std::size_t min_gpu_chunk = 4096;
  // No initial split of a batch: every worker takes its chunks from one shared range, so the cores
  // never hold events that the GPU, many times faster, must steal back range by range
  // (scheduler::ThroughputModelPolicy).
  static constexpr bool shared_pool = true;
  // A batch is matched in pieces, the next prepared on the host while the devices match one
  // (MatcherOptions::max_batch caps a piece, else max_piece): overlap_pieces of them, each at least
  // min_overlap_piece events (a GPU's smallest range); a smaller batch is one piece.
  static constexpr std::size_t max_piece = std::size_t{1} << 20;
  static constexpr std::size_t overlap_pieces = 4;
  static constexpr std::size_t min_overlap_piece = min_gpu_chunk;
  // The preparation of a piece that the devices wait for is cut into parts of at least this many
  // events, one per thread: the Matcher's own helper threads (at most prepare_helpers) and the
  // caller.
  static constexpr std::size_t min_prepare_part = 512;
  static constexpr int prepare_helpers = 7;
};

// The GPU kernels.
struct Gpu {
  // Threads per block of the selection and match kernels.
  static constexpr std::uint32_t block_threads = 256;
  // (event, page) pairs the pair buffer holds per event before the batch is split (it grows on
  // demand; this is its first size).
  static constexpr std::uint32_t initial_pairs_per_event = 16;
  // Matched filter ids a batch's buffer holds per event at first (grows on demand).
  static constexpr std::uint32_t initial_hits_per_event = 4;
  // A range of events in page-locked columns is copied column by column (seven copies, no
  // staging) from this many events on; a smaller one is cheaper staged and copied once.
  static constexpr std::uint32_t min_direct_events = 4096;
  // A range of at most small_range_events events (a warp each in one block) whose staged events
  // fit small_range_bytes and whose counters and bitmaps fit small_result_bytes runs as one kernel
  // that reads its events from and writes its results to page-locked memory (both in shared
  // memory meanwhile).
  static constexpr std::uint32_t small_range_events = 16;
  static constexpr std::size_t small_range_bytes = 8192;
  static constexpr std::size_t small_result_bytes = 8192;
};

}  // namespace sextant::matching::policy
