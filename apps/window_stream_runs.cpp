#include "apps/window_stream_runs.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <variant>

#include "core/parallel_sort.hpp"

namespace sextant::cli {

void sort_rows(const window::StreamResults& r, RowSorter& sorter, TeamRef team) {
  const std::size_t n = r.size();
  auto& rows = sorter.rows;
  rows.resize(n);
  if (n == 0) return;
  const auto workers = static_cast<std::size_t>(team.workers());
  const window::StreamResults::Groups groups = r.groups(team.workers());
  const auto group = [&](const SpillRow& x) { return groups(x.spec, x.key); };
  constexpr unsigned max_high_bits = 11, max_counted_low_bits = 12;
  const unsigned high = std::min(groups.bits, max_high_bits), low = groups.bits - high;
  const std::size_t buckets = std::size_t{1} << high;
  const auto on_team = [&](std::size_t parts, const auto& f) {
    team.run_tasks(parts, [&](std::size_t p, int) { f(p); });
  };
  const bool times = !r.times.empty();
  std::visit(
      [&](const auto& values) {
        counting_scatter(
            n, buckets, std::clamp<std::size_t>(n >> 15, 1, workers), on_team,
            [&](std::size_t i) { return groups(r.specs[i], r.keys[i]) >> low; },
            [&](std::size_t slot, std::size_t i) {
              SpillRow& row = rows[slot];
              row = {r.specs[i], r.keys[i], r.starts[i], r.ends[i], times ? r.times[i] : 0, 0};
              std::memcpy(&row.bits, &values[i], sizeof values[i]);
            },
            sorter.at, &sorter.starts);
      },
      r.values);
  sorter.buffers.resize(workers);
  sorter.bucket_at.resize(workers);
  const auto inline_run = [](std::size_t, const auto& f) { f(0); };
  team.run_tasks(buckets, [&](std::size_t b, int worker) {
    SpillRow* const first = rows.data() + sorter.starts[b];
    const std::size_t size = sorter.starts[b + 1] - sorter.starts[b];
    if (size < 2) return;
    if (low > max_counted_low_bits) {  // (spec, key)s spread wide: few rows each
      std::stable_sort(first, first + size, [&](const SpillRow& x, const SpillRow& y) {
        return std::pair(group(x), x.start) < std::pair(group(y), y.start);
      });
      return;
    }
    if (low > 0) {
      auto& buffer = sorter.buffers[static_cast<std::size_t>(worker)];
      buffer.assign(first, first + size);
      const std::uint64_t mask = (std::uint64_t{1} << low) - 1;
      counting_scatter(
          size, std::size_t{1} << low, 1, inline_run, [&](std::size_t i) { return group(buffer[i]) & mask; },
          [&](std::size_t slot, std::size_t i) { first[slot] = buffer[i]; },
          sorter.bucket_at[static_cast<std::size_t>(worker)]);
    }
    sort_stretches_by_start(first, first + size, group, [](const SpillRow& x) { return x.start; });
  });
}

}  // namespace sextant::cli
