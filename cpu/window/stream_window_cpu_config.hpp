// Tuning knobs of the CPU stream-window specialisation.
#pragma once

#include <cstddef>

namespace sextant::window {

struct CpuStreamConfig {
  int threads = 0;  // 0: OpenMP's default (every core)
  // A batch is split over threads (one pane shard each) only in slices at least this long:
  // below it the merge of the shards' panes costs more than the split saves.
  std::size_t min_tuples_per_thread = std::size_t{1} << 16;
  // ... and only when it holds at least this many tuples per pane on average (from its first and
  // last timestamps): with fewer, each shard releases nearly one pane per tuple and their merge
  // costs more than the split saves (docs/PERFORMANCE.md, session 11).
  std::uint64_t min_tuples_per_pane_to_split = 4;
};

}  // namespace sextant::window
