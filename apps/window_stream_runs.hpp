// The rows of `sextant window --order key`'s sorted runs and their sort: each run is the
// windows kept in memory, in canonical order (spec, key, start; equal windows in firing order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/stream_window.hpp"
#include "core/column_vector.hpp"
#include "core/task_team.hpp"

namespace sextant::cli {

// One window in a sorted run: the value's bytes as they are (its type is the operator's).
struct SpillRow {
  std::uint32_t spec, key;
  std::int64_t start, end, time;
  std::uint64_t bits;
};

// Sorts the runs' rows, keeping its memory from one run to the next (no fresh pages after the
// first).
struct RowSorter {
  ColumnVector<SpillRow> rows;                                   // the last run's, in canonical order
  std::vector<std::vector<std::size_t>> at;                      // the first pass's counters, per worker
  std::vector<std::size_t> starts;                               // each bucket's first row
  std::vector<std::vector<SpillRow>> buffers;                    // per worker: the bucket being sorted
  std::vector<std::vector<std::vector<std::size_t>>> bucket_at;  // per worker: its counters
};

// The rows of `r` in canonical order, into `sorter.rows`. A stable pass on the workers scatters
// them, read column by column in order, into buckets by the high bits of (spec, key); each bucket
// (a few hundred KiB) is then sorted in cache by the low bits, and by start where a (spec, key)'s
// windows did not fire in start order. No row is read at random.
void sort_rows(const window::StreamResults& r, RowSorter& sorter, TeamRef team);

}  // namespace sextant::cli
