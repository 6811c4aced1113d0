// A user-defined stream aggregate (StreamWindow::with_aggregate<A>, api/stream_window_custom.hpp)
// checked the way Sextant checks its built-in ones: generated out-of-order keyed streams run
// through the CPU stream operator (the engine with_aggregate<A> runs) and compared, window by
// window, with the reference (stream_window_reference.hpp), which folds each window's tuples one
// by one with A::combine. The engine combines in another order (panes, trees of panes, the
// per-thread partials of a batch cut over two threads), so a combine that is not associative and
// commutative, an identity that is not neutral or a lift that loses the value shows up as a
// differing window. Also checked: the firing time of every window, late drops and the counters.
//
//   TEST(MyAggregate, Conforms) { sextant::testing::expect_stream_aggregate_conforms<Range>(); }
//
// Values are A::Input: small ranges with many ties, negative values and, for integers, the
// extremes of the type now and then (an aggregate that overflows on them fails). Floating outputs
// are compared with a relative tolerance (`tolerance`: the engine's combine order rounds
// differently from the reference's).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu/window/stream_window_cpu.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "testing/stream_window_checks.hpp"

namespace sextant::testing {

template <window::StreamAggregate A>
void expect_stream_aggregate_conforms(double tolerance = 1e-9) {
  static_assert(window::WindowValue<typename A::Input>,
                "a stream aggregate's Input must be int32, int64, float or double");
  using namespace stream_conformance;
  struct Case {
    std::string what;
    StreamShape shape;
    window::StreamWindowOptions options;
    Batching batching;
  };
  const std::vector<Case> cases = {
      {"sliding time windows, out of order, late tuples, watermarks that go down or are missing",
       {.tuples = 3000,
        .keys = 7,
        .step = 2,
        .delay = 20,
        .wm_lag = 10,
        .wm_down = 0.05,
        .wm_none = 0.2,
        .seed = 1},
       time_options({{10, 4}}, 5),
       {100, true}},
      {"several specs at once: sliding, tumbling, gaps (slide > length)",
       {.tuples = 2000, .keys = 3, .step = 1, .delay = 5, .seed = 2},
       time_options({{60, 20}, {25, 25}, {3, 7}}, 2),
       {257, false}},
      {"count windows",
       {.tuples = 2000, .keys = 5, .step = 1, .delay = 8, .seed = 3},
       count_options({{6, 4}, {3, 3}}),
       {100, true}},
      {"one key, one tuple per batch, tight watermarks",
       {.tuples = 600, .keys = 1, .step = 1, .seed = 4},
       time_options({{1, 1}, {7, 3}}),
       {1, false}},
      {"a thousand scattered keys, long windows, sparse time",
       {.tuples = 6000,
        .keys = 1000,
        .scatter_keys = true,
        .step = 1,
        .delay = 50,
        .wm_lag = 30,
        .jump = 0.001,
        .seed = 5},
       time_options({{500, 100}}, 10),
       {1000, false}},
      {"an empty stream", {.tuples = 0, .seed = 6}, time_options({{4, 2}}), {0, false}},
      {"one tuple", {.tuples = 1, .seed = 7}, time_options({{4, 2}}), {0, false}},
  };
  // One thread, and two: a batch of 256 tuples or more is then cut into per-thread slices whose
  // partials are merged with A::combine.
  const std::vector<window::CpuStreamConfig> configs = {{1, std::size_t{1} << 16}, {2, 128}};
  for (const Case& c : cases) {
    const auto tuples = make_stream<typename A::Input>(c.shape);
    for (const window::CpuStreamConfig& config : configs) {
      SCOPED_TRACE(c.what + "; " + describe(c.options) + "; " + describe(c.shape, c.batching) +
                   "; threads=" + std::to_string(config.threads));
      check_stream_window<window::CpuStreamBackend, A>(tuples, c.options, c.batching, config, 7, tolerance);
      if (::testing::Test::HasFailure()) return;  // one broken case is enough to read
    }
  }
}

}  // namespace sextant::testing
