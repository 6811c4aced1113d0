// The tuning of the window family in one place: the shapes the GPU kernels launch with and that
// the count-window planner's cost model assumes (host and device constexpr, so that a change here
// moves both sides at once), the count-window planner's fitted constants, the CPU
// specialisation's grain and the stream windows' choice of window stage (their measurements:
// docs/PERFORMANCE.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sextant::window::policy {

// CPU count windows: a column shorter than this runs on the calling thread with the first
// runnable variant: one core aggregates 2^20 values in about the time a team of workers takes to
// start and measure its variants (docs/PERFORMANCE.md, "Count windows: one core or the team").
inline constexpr std::uint64_t cpu_inline_values = std::uint64_t{1} << 20;

// CPU stream windows, window stage: the cost model (cpu/window/stream_window_stage_cpu.hpp)
// takes the block scan for a spec while its panes per slide s stay at most this many times the
// B-PAT's levels, floor(log2 w) + 1: a window costs the scan about s pane steps and the B-PAT
// about 2 (floor(log2 w) + 1) combines.
inline constexpr std::int64_t stream_scan_slide_per_level = 4;
// ... and, for time windows, the dense scan (rows of panes over every key) once the first release
// that closes a pane finds at least stream_dense_min_keys keys and enough non-empty (key, pane)
// cells among its pending panes (stream_dense_min_cells). A dense cell costs a sequential step per
// pane, empty or not; the per-key structures cost a few cache misses per non-empty cell, which stay
// cheap only while their keys fit in cache. So up to stream_dense_cached_keys keys the rule asks
// for 1/8 of the cells (below ~10^4 keys the per-key structures win: docs/PERFORMANCE.md, session
// 12); with more keys, for as many cells per pane as at stream_dense_cached_keys (2 048), and never
// for less than 1/2048 of them: on a grid of 10^4 to 4 x 10^6 keys the dense layout was faster
// from there on (session 33).
inline constexpr std::uint32_t stream_dense_min_keys = 4096;
inline constexpr double stream_dense_min_fill = 0.125;
inline constexpr std::uint32_t stream_dense_cached_keys = 16384;
inline constexpr double stream_dense_floor_fill = 1.0 / 2048;
// The non-empty cells over `keys` keys and `panes` panes from which the dense layout wins. It does
// not fall as keys grow.
constexpr double stream_dense_min_cells(double keys, double panes) {
  const double cached = keys < stream_dense_cached_keys ? keys : stream_dense_cached_keys;
  const double per_pane = stream_dense_min_fill * cached;
  return panes * (per_pane > stream_dense_floor_fill * keys ? per_pane : stream_dense_floor_fill * keys);
}
// The dense pane stage's ring of pending rows grows up to this many bytes (at least two rows);
// panes beyond it wait in an ordered side map.
inline constexpr std::uint64_t stream_dense_ring_bytes = std::uint64_t{1} << 28;
// The dense layout's tables (ring rows, the scan's blocks) are laid out and cleared by the stage's
// threads from this size on; below it, starting the team costs more than the pass. At 10^5 keys
// they are hundreds of MiB, one core's first touch of them was most of a run's first push
// (docs/PERFORMANCE.md, session 28).
inline constexpr std::uint64_t stream_parallel_fill_bytes = std::uint64_t{4} << 20;

// Tuples per push that `sextant window --batch auto` hands a GPU, and the CPU per operator thread
// (the paper's 4 MiB of 32-byte tuples, 2^17, per thread). A GPU push pays a few round trips and
// tens of launches whatever its size, and one of 2^22 tuples is cut into four chunks whose copies
// overlap the aggregation. The CPU pane stage splits a push over its threads only in slices of
// at least CpuStreamConfig::min_tuples_per_thread (2^16), so 2^17 for every core in all leaves
// each thread two such slices' worth (docs/PERFORMANCE.md, session 26).
inline constexpr std::size_t stream_cpu_push_tuples_per_thread = std::size_t{1} << 17;
inline constexpr std::size_t stream_gpu_push_tuples = std::size_t{1} << 22;
// The CPU window stage's threads copy their own results into the operator's columns from this
// many results on (below, one thread copies: the parallel region costs more).
inline constexpr std::size_t stream_parallel_copy_rows = std::size_t{1} << 16;

// Threads per block of every window kernel (count windows and the stream GPU pipeline).
inline constexpr std::uint32_t block_threads = 256;
// Each thread of a tile block slices this many consecutive 16-byte vectors: an odd number keeps
// the threads' 16-byte shared-memory loads free of bank conflicts.
inline constexpr std::uint32_t tile_vectors_per_thread = 9;
// COOP-OPT combines a window directly from its chunks up to this many chunks per window; longer
// windows use the segmented scans.
inline constexpr std::uint64_t coop_direct_chunks = 16;
// Values per SH block.
inline constexpr std::uint64_t sh_tile = 2048;
// Blocks of the persistent tile kernel per SM that the cost model assumes.
inline constexpr std::uint32_t tile_blocks_per_sm = 2;
// Bytes of one DRAM sector: the granularity of the direct (`heads`) kernel's reads.
inline constexpr std::uint64_t sector = 32;

namespace cost {

// The tile kernel's costs besides moving bytes (fitted constants: docs/PERFORMANCE.md):
// thread instructions per value, per chunk part and per window part, and the latency of one
// tile's chain of barriers (seconds), which bounds a block's tile rate when chunks are few.
struct TileCosts {
  double per_value;
  double per_chunk;        // plus per_chunk_slope * S, at most per_chunk_cap: a chunk costs more
  double per_chunk_slope;  // when a thread's 36-value run holds fewer of them
  double per_chunk_cap;
  double per_window;
  double per_tile;
};
inline constexpr TileCosts coop_direct_costs{44, 190, 7, 800, 0, 1.2e-6};
// Per window, for each of its (at most 16) chunks; hidden behind memory once S passes 16.
inline constexpr double coop_direct_per_chunk_read = 13;
inline constexpr TileCosts coop_scan_costs{44, 400, 0, 400, 120, 9.0e-6};
inline constexpr TileCosts partials_costs{44, 100, 7, 680, 0, 1.2e-6};
inline constexpr TileCosts tile_scan_costs{44,  120, 7,
                                           700, 0,   2.0e-6};  // partials plus a block scan per tile
// Streaming kernels reach about this share of the measured bandwidths.
inline constexpr double stream_efficiency = 0.95;
// CUB's decoupled look-back scan reaches about this share of the streaming bandwidths, over
// REDUCED-PREFIX's partials and over DIRECT-PREFIX's lifted input (int32 -> int64).
inline constexpr double scan_efficiency = 0.85;
inline constexpr double direct_scan_efficiency = 0.65;
// BLOCK-SCAN's scans by key (through transform and reverse iterators): the direct scan's share
// with accumulators of at most 8 bytes; with the 16-byte (value, position) pairs of argmin,
// argmax, first and last, about a third of it.
inline constexpr double block_scan_wide_efficiency = 0.22;
// SH and GBL: instructions per value (index arithmetic with 64-bit divisions) and per update;
// SH's slowdown over its terms is shared atomics under contention (docs/PERFORMANCE.md).
inline constexpr double baseline_per_value = 80;
inline constexpr double baseline_per_update = 20;
inline constexpr double sh_slowdown = 2.5;

}  // namespace cost

}  // namespace sextant::window::policy
