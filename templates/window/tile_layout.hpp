// Shared-memory layout of one block of the GPU tile kernel (COOP-OPT and the slicing step of
// REDUCED-PREFIX). The planner sizes it and the kernel carves its dynamic shared memory with
// it, so both agree by construction. Plain arithmetic: no CUDA here.
//
//   [ stage 0 | stage 1 ]  tiles of input copied in by the bulk-copy engine, double-buffered
//                          (one stage when the partial arrays would not fit otherwise)
//   [ Suf ]                only when it does not fit in the stage being processed (it aliases it)
//   [ C, later Pre or the tile's running totals ] [ A ] [ block-scan scratch ]
//   [ 2 mbarriers, 2 tile tickets ]
// Arrays of partials are skewed (one spare slot every 32 / 16 entries) so that threads
// reading consecutive runs hit different banks.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "templates/window/chunk_geometry.hpp"
#include "templates/window/count_window_policy.hpp"

namespace sextant::window {

// Each thread of a tile block slices policy::tile_vectors_per_thread 16-byte vectors.
SEXTANT_HD_INLINE constexpr std::uint32_t tile_values_per_thread(std::uint32_t value_bytes) noexcept {
  return policy::tile_vectors_per_thread * 16 / value_bytes;
}
SEXTANT_HD_INLINE constexpr std::uint64_t tile_values(std::uint32_t value_bytes) noexcept {
  return std::uint64_t{policy::block_threads} * tile_values_per_thread(value_bytes);
}

struct TileLayout {
  std::uint64_t tile = 0;    // values per tile
  std::uint32_t stages = 2;  // 1 or 2 input buffers
  std::uint32_t stage_bytes = 0;
  std::uint32_t max_chunks = 0;  // chunks a tile can touch
  std::uint32_t skew_shift = 4;  // slot(i) = i + (i >> skew_shift)
  std::uint32_t array_slots = 0;
  bool suffix_in_stage = false;     // Suf reuses the stage being processed
  std::uint32_t suffix_offset = 0;  // only with `expand` and suffix_in_stage == false
  std::uint32_t full_offset = 0;    // C, then Pre
  std::uint32_t head_offset = 0;    // A
  std::uint32_t scratch_offset = 0;
  std::uint32_t barrier_offset = 0;
  std::uint32_t total_bytes = 0;

  SEXTANT_HD_INLINE constexpr std::uint32_t slot(std::uint32_t i) const noexcept {
    return i + (i >> skew_shift);
  }
  SEXTANT_HD_INLINE constexpr std::uint32_t stage_offset(std::uint32_t stage) const noexcept {
    return stage * stage_bytes;
  }
};

// Bytes of block-wide scan scratch the kernel reserves (ample for CUB's warp-scans BlockScan).
inline constexpr std::uint32_t tile_scan_scratch_bytes = 384;

SEXTANT_HD_INLINE constexpr std::uint32_t align_to(std::uint64_t bytes, std::uint64_t to) noexcept {
  return static_cast<std::uint32_t>((bytes + to - 1) / to * to);
}

// `expand`: COOP-OPT (needs Pre/Suf for the window expansion); otherwise REDUCED-PREFIX's
// slicing (C and A only, or their running totals inside the tile).
SEXTANT_HD_INLINE constexpr TileLayout make_tile_layout(const ChunkGeometry& g, std::uint32_t value_bytes,
                                                        std::uint32_t acc_bytes, bool expand,
                                                        std::uint32_t stages) noexcept {
  TileLayout l;
  l.tile = tile_values(value_bytes);
  l.stages = stages;
  l.stage_bytes = align_to(l.tile * value_bytes + 16, 16);
  const std::uint64_t chunks = (l.tile + g.slide - 1) / g.slide + 1;
  l.max_chunks = static_cast<std::uint32_t>(chunks);
  l.skew_shift = acc_bytes == 8 ? 4 : 5;
  l.array_slots = l.max_chunks + (l.max_chunks >> l.skew_shift) + 1;
  const std::uint64_t array_bytes = std::uint64_t{l.array_slots} * acc_bytes;
  const bool q_zero = g.full_chunks == 0;
  const bool need_suffix = expand && !q_zero;
  const bool need_full = !q_zero;
  const bool need_head = q_zero || g.rest != 0;
  std::uint64_t at = std::uint64_t{l.stage_bytes} * stages;
  if (need_suffix) {
    l.suffix_in_stage = array_bytes <= l.stage_bytes;
    if (!l.suffix_in_stage) {
      l.suffix_offset = static_cast<std::uint32_t>(at);
      at += align_to(array_bytes, 16);
    }
  }
  if (need_full) {
    l.full_offset = static_cast<std::uint32_t>(at);
    at += align_to(array_bytes, 16);
  }
  if (need_head) {
    l.head_offset = static_cast<std::uint32_t>(at);
    at += align_to(array_bytes, 16);
  }
  l.scratch_offset = static_cast<std::uint32_t>(at);
  at += tile_scan_scratch_bytes;
  l.barrier_offset = static_cast<std::uint32_t>(at);
  at += 32;  // two mbarriers, two tile tickets
  l.total_bytes = static_cast<std::uint32_t>(at);
  return l;
}

}  // namespace sextant::window
