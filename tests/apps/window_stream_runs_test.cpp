// The sort of `sextant window --order key`'s runs (apps/window_stream_runs.hpp) against
// std::stable_sort by (spec, key, start), on one worker and on several, for each way it sorts a
// bucket: (spec, key)s that the buckets split alone, a counting pass on the low bits, and a
// comparison sort for (spec, key)s spread wide; rows as an operator fires them and rows out of
// start order, ties everywhere.
#include "apps/window_stream_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/omp_team.hpp"

namespace sextant::cli {
namespace {

std::uint64_t next_random(std::uint64_t& x) {
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

struct Shape {
  std::string name;
  std::vector<std::uint32_t> specs;
  std::vector<window::StreamKey> keys;
  bool shuffled_starts;  // else each (spec, key)'s windows fire in start order, but every 4999th
};

// n windows fired poll after poll: every poll fires each (spec, key) once, in another order;
// value and timestamp are the firing position.
window::StreamResults fire(const Shape& shape, std::size_t n) {
  window::StreamResults r;
  ColumnVector<std::int64_t> values;
  const std::size_t per_poll = shape.specs.size() * shape.keys.size();
  std::uint64_t x = 99;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t poll = i / per_poll, at = (i % per_poll) * 7919 % per_poll;
    r.specs.push_back(shape.specs[at % shape.specs.size()]);
    r.keys.push_back(shape.keys[at / shape.specs.size()]);
    std::int64_t start = static_cast<std::int64_t>(poll) * 10 - 50;
    if (shape.shuffled_starts)
      start = static_cast<std::int64_t>(next_random(x) >> 61) - 3;  // ties on every (spec, key)
    else if (i % 4999 == 17)
      start -= 20 + static_cast<std::int64_t>(i % 3) * 10;  // fired late, tying with earlier ones
    r.starts.push_back(start);
    r.ends.push_back(start + 100);
    r.times.push_back(static_cast<std::int64_t>(i));
    values.push_back(static_cast<std::int64_t>(i));
  }
  r.values = std::move(values);
  return r;
}

void expect_sorted(const window::StreamResults& r, TeamRef team) {
  std::vector<std::size_t> want(r.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = i;
  std::stable_sort(want.begin(), want.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(r.specs[a], r.keys[a], r.starts[a]) < std::tie(r.specs[b], r.keys[b], r.starts[b]);
  });
  RowSorter sorter;
  for (int again = 0; again < 2; ++again) {  // the second time on the memory the first one kept
    sort_rows(r, sorter, team);
    ASSERT_EQ(sorter.rows.size(), want.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const SpillRow& got = sorter.rows[i];
      const std::size_t w = want[i];
      std::int64_t value = 0;
      std::memcpy(&value, &got.bits, sizeof value);
      wrong += got.spec != r.specs[w] || got.key != r.keys[w] || got.start != r.starts[w] ||
               got.end != r.ends[w] || got.time != r.times[w] || value != static_cast<std::int64_t>(w);
    }
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(WindowStreamRuns, SortRowsIsTheStableOrder) {
  std::uint64_t x = 5;
  std::vector<window::StreamKey> wide(3000);
  for (auto& k : wide) k = static_cast<window::StreamKey>(next_random(x) >> 32);
  wide[0] = 0;
  wide[1] = std::numeric_limits<window::StreamKey>::max();
  std::vector<window::StreamKey> dense(5000);
  for (std::size_t k = 0; k < dense.size(); ++k) dense[k] = static_cast<window::StreamKey>(k + 1000);
  const std::vector<Shape> shapes = {
      {"7 keys", {0}, {3, 1, 4, 0, 5, 9, 2}, false},
      {"7 keys, starts shuffled", {0}, {3, 1, 4, 0, 5, 9, 2}, true},
      {"5000 keys, 2 specs", {0, 1}, dense, false},
      {"5000 keys, 2 specs, starts shuffled", {0, 1}, dense, true},
      {"keys over 32 bits, specs 0 and 9", {9, 0}, wide, false},
      {"keys over 32 bits, starts shuffled", {9, 0}, wide, true},
      {"specs 0 and 2^32 - 1, 64-bit groups", {std::numeric_limits<std::uint32_t>::max(), 0}, wide, true},
  };
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    const window::StreamResults r = fire(shape, 200003);
    cpu::OmpTeam three(3), four(4);
    for (const TeamRef& team : {TeamRef(), TeamRef(three), TeamRef(four)}) {
      SCOPED_TRACE("workers " + std::to_string(team.workers()));
      expect_sorted(r, team);
    }
  }
  RowSorter sorter;
  window::StreamResults none;
  none.values = window::make_column(window::ValueType::int64, 0);
  sort_rows(none, sorter, TeamRef());
  EXPECT_TRUE(sorter.rows.empty());
}

}  // namespace
}  // namespace sextant::cli
