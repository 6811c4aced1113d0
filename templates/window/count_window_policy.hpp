// The tuning of the window family's GPU kernels in one place: the shapes the kernels launch
// with and that the count-window planner's cost model assumes. Host and device constexpr, so
// that a change here moves both sides at once. The cost model's fitted rates stay in
// count_window_planner.cpp (their measurements: docs/PERFORMANCE.md).
#pragma once

#include <cstdint>

namespace sextant::window::policy {

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

}  // namespace sextant::window::policy
