// The one test body every count-window backend runs (the CPU specialisation, each GPU
// algorithm, the selector): every function x every value type against the naive reference,
// over a grid of (W, S) with non-powers of two, S > W, S == W, W == 1, n not a multiple of S
// and n < W, plus random columns of 1e5..1e6 values. A backend that cannot run a problem
// (SH beyond its shared memory, a prefix algorithm for min/max, an atomic one for argmax) must
// say so through can_run; the positional functions (argmin, argmax, first, last) are checked
// with their positions;
// a slow baseline caps n through max_updates (values x fan-out) to keep the suite short.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "templates/window/count_window.hpp"
#include "tests/window/count_window_reference.hpp"

namespace sextant::testing {

// What a backend returns: the K results and, for the positional functions, their positions.
struct CountWindowOutput {
  window::Column values;
  std::vector<std::int64_t> positions;
};

struct CountWindowBackend {
  std::string name;
  std::function<std::string()> unavailable;  // empty string: available; else why the test skips
  std::function<bool(const window::CountWindowProblem&)> can_run;
  std::function<CountWindowOutput(window::ColumnView, window::CountWindowSpec, window::AggregateKind)> run;
  std::uint64_t max_updates = 0;            // 0: no cap
  // Random columns hold 1e5..1e6 values divided by this (at least a few windows): the GPU's tile
  // and block edges need the large ones; CPU variants, whose parallel loops cut at chunks, run
  // the same shapes smaller so that every variant fits the suite's time.
  std::uint64_t random_scale_down = 1;
  bool prefix_only_for_invertible = false;  // the backend is a prefix algorithm
};

inline const std::vector<std::uint64_t>& window_grid() {
  static const std::vector<std::uint64_t> grid = {1,  2,  3,  4,   5,   7,    8,    16,
                                                  31, 32, 33, 100, 128, 1000, 1024, 4097};
  return grid;
}

// The functions with a device atomic (every GPU algorithm serves some of them).
inline const std::vector<window::AggregateKind>& all_kinds() {
  static const std::vector<window::AggregateKind> kinds = {
      window::AggregateKind::sum, window::AggregateKind::count, window::AggregateKind::min,
      window::AggregateKind::max};
  return kinds;
}
// Those and the positional functions: what the conformance body checks.
inline const std::vector<window::AggregateKind>& conformance_kinds() {
  static const std::vector<window::AggregateKind> kinds = {
      window::AggregateKind::sum,   window::AggregateKind::count,  window::AggregateKind::min,
      window::AggregateKind::max,   window::AggregateKind::argmin, window::AggregateKind::argmax,
      window::AggregateKind::first, window::AggregateKind::last};
  return kinds;
}

class CountWindowConformance : public ::testing::TestWithParam<CountWindowBackend> {
 protected:
  void SetUp() override {
    if (const std::string why = GetParam().unavailable(); !why.empty()) GTEST_SKIP() << why;
  }

  // Runs one case for every function; returns false (after recording a failure) on a mismatch.
  template <class T>
  bool check(const std::vector<T>& x, std::uint64_t w, std::uint64_t s, std::uint64_t reference_budget) {
    const CountWindowBackend& b = GetParam();
    for (window::AggregateKind kind : conformance_kinds()) {
      const window::CountWindowProblem problem{x.size(), {w, s}, window::value_type_of<T>, kind};
      const bool runs = b.can_run(problem);
      if (b.prefix_only_for_invertible && !window::is_invertible(kind)) {
        EXPECT_FALSE(runs) << b.name << " claims it can run " << window::to_string(kind);
        continue;
      }
      if (!runs) {
        ++skipped_;
        continue;
      }
      const CountWindowOutput got = b.run(window::ColumnView(std::span<const T>(x)), {w, s}, kind);
      const auto which = windows_to_check(problem.windows(), w, reference_budget);
      std::vector<std::int64_t> want_positions;
      const window::Column want = reference_windows(x, w, s, kind, which, &want_positions);
      auto same = same_windows(got.values, want, which, x, w, s, kind);
      if (same && window::reports_position(kind))
        same = same_positions(got.positions, want_positions, which, problem.windows());
      if (!same) {
        ADD_FAILURE() << b.name << " " << window::to_string(window::value_type_of<T>) << " "
                      << window::to_string(kind) << " n=" << x.size() << " W=" << w << " S=" << s << ": "
                      << same.message();
        return false;
      }
      ++checked_;
    }
    return true;
  }

  // Lengths around the edges: none, one value, W-1 (no window), W (one), W+S-1 (one, n not a
  // multiple of S), a few windows plus a ragged end.
  static std::vector<std::uint64_t> edge_lengths(std::uint64_t w, std::uint64_t s) {
    return {0, 1, w - 1, w, w + s - 1, w + 3 * s + (s > 1 ? s / 2 : 1)};
  }

  std::uint64_t capped(std::uint64_t n, std::uint64_t w, std::uint64_t s) const {
    const std::uint64_t cap = GetParam().max_updates;
    if (cap == 0) return n;
    const std::uint64_t fan_out = (w + s - 1) / s;
    return std::min(n, std::max(w + 3 * s + 1, cap / fan_out));
  }

  template <class T>
  void run_edges() {
    std::uint64_t seed = 1;
    for (std::uint64_t w : window_grid())
      for (std::uint64_t s : window_grid())
        for (std::uint64_t n : edge_lengths(w, s)) {
          const auto x = window_values<T>(capped(n, w, s), ++seed * 7919 + w * 31 + s);
          if (!check(x, w, s, std::uint64_t{1} << 40)) return;
        }
  }

  template <class T>
  void run_random() {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
    for (std::uint64_t w : {1, 3, 7, 32, 33, 100, 1000, 4097})
      for (std::uint64_t s : {1, 3, 7, 32, 33, 100, 1000, 4097}) pairs.emplace_back(w, s);
    // Windows and slides longer than any tile, huge gaps, chunks split between blocks.
    for (auto p : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {50000, 3}, {50000, 20000}, {100000, 100000}, {3, 70000}, {20001, 1}, {65536, 16384}})
      pairs.push_back(p);
    SplitMix64 rng(4242);
    for (auto [w, s] : pairs) {
      const std::uint64_t drawn = (100000 + rng.below(900001)) / GetParam().random_scale_down;
      const std::uint64_t n = capped(std::max(drawn, w + 3 * s + 1), w, s);
      const auto x = window_values<T>(n, rng.next());
      if (!check(x, w, s, 3'000'000)) return;
    }
  }

  std::uint64_t checked_ = 0;
  std::uint64_t skipped_ = 0;
};

#define SEXTANT_COUNT_WINDOW_TYPE_TESTS(T, suffix)         \
  TEST_P(CountWindowConformance, Edges##suffix) {          \
    run_edges<T>();                                        \
    RecordProperty("checked", static_cast<int>(checked_)); \
    RecordProperty("skipped", static_cast<int>(skipped_)); \
  }                                                        \
  TEST_P(CountWindowConformance, Random##suffix) {         \
    run_random<T>();                                       \
  }

SEXTANT_COUNT_WINDOW_TYPE_TESTS(std::int32_t, Int32)
SEXTANT_COUNT_WINDOW_TYPE_TESTS(std::int64_t, Int64)
SEXTANT_COUNT_WINDOW_TYPE_TESTS(float, Float)
SEXTANT_COUNT_WINDOW_TYPE_TESTS(double, Double)

inline std::string backend_name(const ::testing::TestParamInfo<CountWindowBackend>& info) {
  std::string out;
  for (char c : info.param.name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

}  // namespace sextant::testing
