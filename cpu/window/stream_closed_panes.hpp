// What the CPU pane stage hands to the CPU window stage: the panes closed by the last release,
// grouped by key (dense id) and ascending pane id within a key; or, in the dense layout (window
// stage `dense`), as rows over every key in ascending pane order.
#pragma once

#include <cstdint>
#include <utility>
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

  // The dense layout: each closed pane with a tuple is a row; a row's cells are `keys`
  // accumulators indexed by dense key id and `taken` one bit per key, set where the key has a
  // tuple in the pane (both owned by the pane stage, valid until its next call), or, for a pane
  // that waited outside the ring, the (id, partial) pairs cells[begin, end) in arrival order.
  struct Row {
    std::int64_t pane = 0;
    const typename A::Acc* cells = nullptr;
    const std::uint64_t* taken = nullptr;  // bit id % 64 of word id / 64
    std::uint32_t begin = 0, end = 0;
  };
  bool dense = false;
  std::uint32_t dense_keys = 0;          // ids below this may appear
  const StreamKey* key_of_id = nullptr;  // [dense_keys]
  std::vector<Row> rows;
  std::vector<std::pair<std::uint32_t, Partial<A>>> cells;

  void clear() {
    keys.clear();
    panes.clear();
    partials.clear();
    rows.clear();
    cells.clear();
  }
};

}  // namespace sextant::window
