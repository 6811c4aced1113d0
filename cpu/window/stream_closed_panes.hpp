// What the CPU pane stage hands to the CPU window stage: the panes closed by the last release,
// grouped by key (dense id) and ascending pane id within a key.
#pragma once

#include <cstdint>
#include <vector>

#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"

namespace sextant::window {

template <StreamAggregate A>
struct CpuClosedPanes {
  struct KeyRun {
    StreamKey key = 0;
    std::uint32_t id = 0;       // dense key id, stable over the operator's life
    std::int64_t frontier = 0;  // count windows: every pane of this key below is closed
    std::uint32_t begin = 0;    // [begin, end) into panes / partials
    std::uint32_t end = 0;
  };
  std::vector<KeyRun> keys;
  std::vector<std::int64_t> panes;
  std::vector<Partial<A>> partials;
  // Time windows: every pane below is closed, for every key (INT64_MAX: end of stream).
  std::int64_t frontier = 0;
  bool count_windows = false;

  void clear() {
    keys.clear();
    panes.clear();
    partials.clear();
  }
};

}  // namespace sextant::window
