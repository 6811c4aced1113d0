// What a user writes to check hooks and an aggregate of their own against Sextant's conformance
// bodies (docs/extending.md, "Checking your own hook"), from the installed headers alone.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sextant/skycube.hpp>
#include <sextant/testing.hpp>
#include <sextant/window_custom.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

using sextant::Dataset;
using sextant::PointId;
using sextant::skycube::CuboidInput;
using sextant::skycube::CuboidOutput;

// A cuboid hook of our own: the skyline of the candidates in the subspace and the rest of their
// extended skyline, by comparing every pair, O(k^2 d). `ties_dominate` is the classic mistake
// (a point at least as good everywhere "dominates": copies of a point drop each other).
struct NaiveCuboid {
  static constexpr std::string_view name = "naive-cuboid";
  static constexpr sextant::DeviceKind device_kind = sextant::DeviceKind::cpu;
  static constexpr bool parallel = false;
  bool ties_dominate = false;

  void compute(const CuboidInput& in, CuboidOutput& out) const {
    out.skyline.clear();
    out.extended_only.clear();
    for (const PointId p : in.candidates) {
      bool dominated = false, strictly = false;
      for (const PointId q : in.candidates) {
        if (q == p) continue;
        if (dominated && strictly) break;
        bool le = true, lt_some = false, lt_all = true;
        for (int j = 0; j < in.data.dims(); ++j) {
          if ((in.subspace >> j & 1u) == 0) continue;
          le = le && in.data(q, j) <= in.data(p, j);
          lt_some = lt_some || in.data(q, j) < in.data(p, j);
          lt_all = lt_all && in.data(q, j) < in.data(p, j);
        }
        dominated = dominated || (le && (lt_some || ties_dominate));
        strictly = strictly || lt_all;
      }
      if (!dominated)
        out.skyline.push_back(p);
      else if (!strictly)
        out.extended_only.push_back(p);
    }
  }
};
static_assert(sextant::skycube::SequentialCuboidHook<NaiveCuboid>);

// The full-space extended skyline the templates start from: the points no other point is
// strictly better than in every column.
struct NaiveExtendedSkyline {
  static constexpr std::string_view name = "naive-extended-skyline";
  static constexpr sextant::DeviceKind device_kind = sextant::DeviceKind::cpu;

  std::vector<PointId> extended_skyline(const Dataset& data) const {
    std::vector<PointId> out;
    for (PointId p = 0; p < data.size(); ++p) {
      bool strictly = false;
      for (PointId q = 0; q < data.size() && !strictly; ++q) {
        bool lt_all = true;
        for (int j = 0; j < data.dims() && lt_all; ++j) lt_all = data(q, j) < data(p, j);
        strictly = lt_all;
      }
      if (!strictly) out.push_back(p);
    }
    return out;
  }
};
static_assert(sextant::skycube::ExtendedSkylineHook<NaiveExtendedSkyline>);

// The messages of the failures `check` reports, caught instead of failing this test.
template <class F>
std::vector<std::string> failures_of(F&& check) {
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter catcher(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    check();
  }
  std::vector<std::string> messages;
  for (int i = 0; i < failures.size(); ++i) messages.emplace_back(failures.GetTestPartResult(i).message());
  return messages;
}

TEST(MyCuboidHook, MatchesBruteForceOnTieHeavyData) {
  NaiveCuboid hook;
  sextant::testing::check_cuboid_hook(hook, sextant::testing::tie_heavy_datasets());
}

TEST(MyCuboidHook, StscBuiltFromItMatchesTheReferenceSkycube) {
  const sextant::testing::SkycubeRunner runner{
      "stsc with naive-cuboid", [](const Dataset& data, int max_level, int /*threads*/) {
        NaiveExtendedSkyline extended;
        std::vector<NaiveCuboid> hooks(1);
        sextant::SerialTeam team;
        return sextant::skycube::stsc(data, max_level, extended, std::span(hooks), team).cube;
      }};
  sextant::testing::run_conformance(runner, {1}, 8);  // up to 8 columns: the hook is O(n^2)
}

TEST(MyCuboidHook, TheBodyRejectsAHookWhoseCopiesDropEachOther) {
  const NaiveCuboid wrong{.ties_dominate = true};
  const auto failures = failures_of(
      [&] { sextant::testing::check_cuboid_hook(wrong, sextant::testing::tie_heavy_datasets(), 1); });
  ASSERT_FALSE(failures.empty()) << "the cuboid body passed a hook that drops tied copies";
  EXPECT_NE(failures.front().find("out.skyline"), std::string::npos) << failures.front();
}

// A stream aggregate of our own (StreamWindow::with_aggregate<Range>): max - min of double values.
struct Range {
  static constexpr std::string_view name = "range";
  using Input = double;
  struct Acc {
    double lo, hi;
  };
  using Output = double;
  static Acc identity() {
    return {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  }
  static Acc lift(double x) { return {x, x}; }
  static Acc combine(Acc a, Acc b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
  static Output lower(Acc a) { return a.hi - a.lo; }
};

// The classic mistake: the mean of two means, which depends on how the tuples are grouped.
struct MeanOfMeans {
  static constexpr std::string_view name = "mean-of-means";
  using Input = std::int64_t;
  struct Acc {
    double mean;
    bool empty;
  };
  using Output = double;
  static Acc identity() { return {0, true}; }
  static Acc lift(std::int64_t x) { return {static_cast<double>(x), false}; }
  static Acc combine(Acc a, Acc b) {
    if (a.empty) return b;
    if (b.empty) return a;
    return {(a.mean + b.mean) / 2, false};
  }
  static Output lower(Acc a) { return a.mean; }
};

TEST(MyAggregate, RangeConforms) {
  sextant::testing::expect_stream_aggregate_conforms<Range>();
}

TEST(MyAggregate, TheBodyRejectsAMeanOfMeans) {
  const auto failures =
      failures_of([] { sextant::testing::expect_stream_aggregate_conforms<MeanOfMeans>(); });
  EXPECT_FALSE(failures.empty()) << "the stream body passed an aggregate whose combine is not associative";
}

TEST(MyAggregate, RunsInTheReadyMadeStreamWindow) {
  sextant::window::StreamWindowOptions options;
  options.specs = {{sextant::window::WindowType::time, 10, 5}};
  auto window = sextant::window::StreamWindow::with_aggregate<Range>(options);
  EXPECT_EQ(window.aggregate_name(), "range");
}

}  // namespace
