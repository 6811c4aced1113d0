// The one test body every stream-window backend runs (CPU, GPU, ...): random out-of-order
// keyed streams against the brute-force reference (testing/stream_window_reference.hpp), compared id
// for id (spec, key, start, end) and value (exact for integer outputs, relative tolerance for
// floating ones), with the counters, the firing time of every window (after each push the
// windows polled so far are exactly those whose end + L <= watermark; count windows: those
// whose end <= the key's tuples so far) and the bad-input contract. The pieces that need no
// fixture (generated streams, the comparisons, check_stream_window) are in
// testing/stream_window_checks.hpp, installed with Sextant::testing.
//
// Instantiating it for a backend is one line at namespace scope:
//
//   INSTANTIATE_STREAM_WINDOW_CONFORMANCE(Cpu, sextant::window::CpuStreamBackend);
//
// A backend that needs a non-default Config or may be unavailable (no GPU) specialises the
// traits first:
//
//   template <> struct sextant::testing::StreamBackendTraits<MyBackend> {
//     static MyBackend::Config config() { return {...}; }
//     static std::string skip_reason() { return has_gpu() ? "" : "no CUDA device"; }
//   };
//
// Traits may also adjust the options of every checked stream, e.g. to force one variant of a
// stage: `static void adjust(window::StreamWindowOptions& o) { o.window_stage = ...; }`.
// Such a variant of an existing backend is best a tag type whose traits also name the backend
// (`using Backend = window::CpuStreamBackend;`): every variant then shares the backend's operators
// and checks, compiled once, instead of instantiating them all again for a new type.
//
// Bad input the body expects (DESIGN.md, stream_hooks.hpp): a negative timestamp throws
// sextant::Error of kind bad_input whose message names the tuple's index in the batch; columns
// of different lengths throw sextant::Error; both leave the operator as it was (it can go on);
// push after finish throws sextant::Error of kind unsupported.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "templates/window/stream_operator.hpp"
#include "testing/stream_window_checks.hpp"
#include "testing/stream_window_reference.hpp"

namespace sextant::testing {

template <class Backend>
struct StreamBackendTraits {
  static typename Backend::Config config() { return {}; }
  static std::string skip_reason() { return {}; }  // non-empty: the suite skips with this text
};

namespace detail {
template <class Variant>
struct StreamVariantBackend {
  using type = Variant;
};
template <class Variant>
requires requires {
  typename StreamBackendTraits<Variant>::Backend;
}
struct StreamVariantBackend<Variant> {
  using type = typename StreamBackendTraits<Variant>::Backend;
};
}  // namespace detail

// The backend a suite's type parameter runs: the type itself, or, for a variant of a backend
// (a tag whose traits name `using Backend = ...` and differ only in config() or adjust()), that
// backend. Variants of one backend then share its operators and checks, compiled once.
template <class Variant>
using StreamVariantBackend = typename detail::StreamVariantBackend<Variant>::type;
template <class Variant, class A>
using VariantOperator = window::StreamWindowOperator<StreamVariantBackend<Variant>, A>;

template <class Variant>
class StreamWindowConformance : public ::testing::Test {
 protected:
  using Backend = StreamVariantBackend<Variant>;

  void SetUp() override {
    if (const std::string why = StreamBackendTraits<Variant>::skip_reason(); !why.empty())
      GTEST_SKIP() << why;
  }

  // Runs `tuples` through the backend in batches, polling after each push and checking the
  // firing time; then finishes and compares everything with the reference (check_stream_window).
  template <class A>
  void check(const std::vector<window::testing::RefTuple<typename A::Input>>& tuples,
             const window::StreamWindowOptions& options, const stream_conformance::Batching& batching,
             std::uint64_t seed = 7) {
    window::StreamWindowOptions adjusted = options;
    if constexpr (requires { StreamBackendTraits<Variant>::adjust(adjusted); })
      StreamBackendTraits<Variant>::adjust(adjusted);
    check_stream_window<Backend, A>(tuples, adjusted, batching, StreamBackendTraits<Variant>::config(), seed);
  }

  template <class V>
  void check_all_aggregates(const stream_conformance::StreamShape& shape,
                            const window::StreamWindowOptions& options,
                            const stream_conformance::Batching& batching) {
    SCOPED_TRACE(stream_conformance::describe(options) + "; " +
                 stream_conformance::describe(shape, batching));
    const auto tuples = stream_conformance::make_stream<V>(shape);
    stream_conformance::for_each_aggregate<V>(
        [&](auto a) { this->template check<decltype(a)>(tuples, options, batching); });
    // argmin, argmax, first, last: on backends whose pane stage lifts with the timestamp.
    if constexpr (requires { requires Backend::lifts_with_context; })
      stream_conformance::for_each_positional_aggregate<V>(
          [&](auto a) { this->template check<decltype(a)>(tuples, options, batching); });
  }

  template <class A>
  void check_one(const stream_conformance::StreamShape& shape, const window::StreamWindowOptions& options,
                 const stream_conformance::Batching& batching) {
    SCOPED_TRACE(stream_conformance::describe(options) + "; " +
                 stream_conformance::describe(shape, batching));
    this->template check<A>(stream_conformance::make_stream<typename A::Input>(shape), options, batching);
  }
};

TYPED_TEST_SUITE_P(StreamWindowConformance);

// A stream small enough to follow by hand: W = 4, S = 2, L = 0.
TYPED_TEST_P(StreamWindowConformance, HandWorkedExample) {
  using A = window::SumAggregate<std::int64_t>;
  VariantOperator<TypeParam, A> op(stream_conformance::time_options({{4, 2}}),
                                   StreamBackendTraits<TypeParam>::config());
  const std::vector<std::int64_t> ts = {1, 3, 5, 0, 9}, values = {1, 2, 4, 100, 8}, wms = {0, 0, 6, 6, 6};
  const std::vector<std::int64_t> ts0(ts.begin(), ts.begin() + 3), v0(values.begin(), values.begin() + 3),
      w0(wms.begin(), wms.begin() + 3);
  op.push({{}, ts0, v0, w0});
  std::vector<window::WindowResult<std::int64_t>> out;
  op.poll(out);
  window::testing::sort_results(out);
  // Watermark 6: [0,4) and [2,6) are complete; [4,8) is not.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (window::WindowResult<std::int64_t>{0, 0, 0, 4, 3}));
  EXPECT_EQ(out[1], (window::WindowResult<std::int64_t>{0, 0, 2, 6, 6}));
  // ts 0 arrives at watermark 6: late, dropped. ts 9 opens [6,10) and [8,12).
  const std::vector<std::int64_t> ts1(ts.begin() + 3, ts.end()), v1(values.begin() + 3, values.end()),
      w1(wms.begin() + 3, wms.end());
  op.push({{}, ts1, v1, w1});
  out.clear();
  EXPECT_EQ(op.poll(out), 0u);
  op.finish();
  op.poll(out);
  window::testing::sort_results(out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (window::WindowResult<std::int64_t>{0, 0, 4, 8, 4}));
  EXPECT_EQ(out[1], (window::WindowResult<std::int64_t>{0, 0, 6, 10, 8}));
  EXPECT_EQ(out[2], (window::WindowResult<std::int64_t>{0, 0, 8, 12, 8}));
  EXPECT_EQ(op.counters().late_dropped, 1u);
  EXPECT_EQ(op.counters().windows_emitted, 5u);
  EXPECT_EQ(op.watermark(), 6);
}

// W a multiple of S, not a multiple, S > W (gaps), S == W (tumbling), W == S == 1, with and
// without disorder, trees of 1, 3 and 64 windows.
TYPED_TEST_P(StreamWindowConformance, TimeWindowShapes) {
  using namespace stream_conformance;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{12, 4}, {10, 4}, {3, 7}, {5, 5},
                                                                     {1, 1},  {7, 1},  {4, 6}, {30, 12}};
  std::uint64_t seed = 1;
  for (auto spec : shapes)
    for (std::int64_t delay : {0, 40})
      for (std::int64_t nw : {1, 3, 64}) {
        StreamShape shape;
        shape.tuples = 700;
        shape.delay = delay;
        shape.seed = seed++;
        this->template check_one<window::SumAggregate<std::int64_t>>(shape, time_options({spec}, 0, nw),
                                                                     {64, true});
        if (nw == 3)
          this->template check_all_aggregates<std::int64_t>(shape, time_options({spec}, 0, nw), {50, false});
      }
}

// Panes of hundreds of time units over a dense, nearly ordered stream: long runs of tuples
// that share a pane (a backend may add such runs at once), broken by late tuples, a watermark
// that reaches the tuples' own timestamps, and lateness.
TYPED_TEST_P(StreamWindowConformance, LongPanes) {
  using namespace stream_conformance;
  std::uint64_t seed = 50;
  for (auto spec : std::vector<std::pair<std::int64_t, std::int64_t>>{{600, 200}, {512, 512}})
    for (std::int64_t delay : {0, 4})
      for (std::int64_t lag : {-1, 0, 2})
        for (std::int64_t lateness : {0, 3}) {
          StreamShape shape;
          shape.tuples = 3000;
          shape.delay = delay;
          shape.wm_lag = lag;
          shape.seed = seed++;
          const auto options = time_options({spec}, lateness, 2);
          this->template check_one<window::SumAggregate<std::int64_t>>(shape, options, {1000, true});
          this->template check_one<window::AvgAggregate<float>>(shape, options, {3000, false});
          this->template check_one<window::MinAggregate<double>>(shape, options, {77, false});
        }
}

// Every built-in aggregate over every value type, with keys, late tuples and lateness.
TYPED_TEST_P(StreamWindowConformance, EveryAggregateEveryValueType) {
  using namespace stream_conformance;
  StreamShape shape;
  shape.tuples = 1200;
  shape.keys = 5;
  shape.step = 2;
  shape.delay = 30;
  shape.wm_lag = 10;
  for_each_value_type([&](auto v) {
    using V = decltype(v);
    this->template check_all_aggregates<V>(shape, time_options({{10, 4}}, 5), {100, true});
    this->template check_all_aggregates<V>(shape, count_options({{6, 4}}), {100, true});
  });
}

// 10 000 keys, consecutive and scattered over uint32 (the hash path of a key index).
TYPED_TEST_P(StreamWindowConformance, TenThousandKeys) {
  using namespace stream_conformance;
  StreamShape shape;
  shape.tuples = 40000;
  shape.keys = 10000;
  shape.step = 1;
  shape.delay = 25;
  shape.wm_lag = 20;
  for (bool scatter : {false, true}) {
    shape.scatter_keys = scatter;
    shape.seed = scatter ? 11 : 12;
    this->template check_one<window::SumAggregate<std::int64_t>>(shape, time_options({{6, 2}}, 2),
                                                                 {4096, false});
    this->template check_one<window::MaxAggregate<std::int32_t>>(shape, time_options({{6, 2}, {3, 5}}),
                                                                 {20000, false});
    this->template check_one<window::VarAggregate<double>>(shape, count_options({{3, 2}}), {999, true});
  }
}

// Zero delay, small and very large delays (the whole stream out of order), with late tuples
// (watermark lag below the delay) and lateness 0, small and large.
TYPED_TEST_P(StreamWindowConformance, DelaysLatenessAndLateTuples) {
  using namespace stream_conformance;
  std::uint64_t seed = 100;
  for (std::int64_t delay : {0, 5, 1000, 1'000'000})
    for (std::int64_t lag_div : {1, 3, 1000})
      for (std::int64_t lateness : {0, 3, 100}) {
        StreamShape shape;
        shape.tuples = 900;
        shape.keys = 3;
        shape.step = delay == 1'000'000 ? 1000 : 2;
        shape.delay = delay;
        shape.wm_lag = delay / lag_div;
        shape.seed = seed++;
        const auto options = time_options({{8, 2}}, lateness, 4);
        this->template check_one<window::SumAggregate<std::int32_t>>(shape, options, {128, true});
        this->template check_one<window::MinAggregate<float>>(shape, options, {900, false});
      }
}

// One key whose watermark is its event time (no slack): each tuple is late or not by the
// watermark just before it, which changes within every run of 8 in-order tuples; tuples a few
// units behind, lateness 0 .. 3, panes of 1 .. 16 units; the key is 0 (no key column) or another
// value (a key column that holds one key).
TYPED_TEST_P(StreamWindowConformance, OneKeyWithTightWatermarks) {
  using namespace stream_conformance;
  std::uint64_t seed = 150;
  for (std::int64_t delay : {0, 1, 3})
    for (std::int64_t lateness : {0, 1, 3})
      for (const auto& spec : std::vector<std::pair<std::int64_t, std::int64_t>>{{16, 16}, {64, 8}, {5, 1}}) {
        StreamShape shape;
        shape.tuples = 3000;
        shape.step = 1;
        shape.delay = delay;
        shape.wm_lag = 0;
        shape.scatter_keys = seed % 2 == 0;
        shape.seed = seed++;
        const auto options = time_options({spec}, lateness, 4);
        this->template check_one<window::SumAggregate<std::int64_t>>(shape, options, {1000, false});
        this->template check_one<window::CountAggregate<std::int32_t>>(shape, options, {97, true});
      }
}

// In-order streams of one key, as fine-slide sources send them (a backend may close such batches
// straight from the tuples): one tuple per pane or runs of several (ties included), watermarks at
// the event time or behind it, lateness, batches of 1 to 4096 tuples, the key 0 (no key column) or
// another; then batches that change the key, and in-order batches between disordered ones.
TYPED_TEST_P(StreamWindowConformance, InOrderStreams) {
  using namespace stream_conformance;
  std::uint64_t seed = 700;
  for (const auto& spec :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{5, 1}, {64, 8}, {16, 16}, {1, 1}})
    for (std::int64_t step : {0, 1, 3})
      for (std::int64_t lag : {0, 2})
        for (std::int64_t lateness : {0, 2}) {
          StreamShape shape;
          shape.tuples = 2000;
          shape.step = step;
          shape.wm_lag = lag;
          shape.scatter_keys = seed % 2 == 0;
          shape.seed = seed++;
          const auto options = time_options({spec}, lateness, 4);
          this->template check_one<window::SumAggregate<std::int32_t>>(shape, options, {300, true});
          this->template check_one<window::MaxAggregate<double>>(shape, options, {4096, false});
          if (step == 1 && lag == 0 && lateness == 0)
            this->template check_all_aggregates<std::int64_t>(shape, options, {1, false});
        }
  // Key 3, then key 9 (one batch holds both), in order throughout.
  StreamShape shape;
  shape.tuples = 3000;
  shape.wm_lag = 0;
  auto tuples = make_stream<std::int64_t>(shape);
  for (std::size_t i = 0; i < tuples.size(); ++i) tuples[i].key = i < 1500 ? 3 : 9;
  this->template check<window::SumAggregate<std::int64_t>>(tuples, time_options({{5, 1}}), {256, false});
  // Watermarks 3 units ahead of the event time: in order, yet tuples late by the one before.
  shape.step = 2;
  tuples = make_stream<std::int64_t>(shape);
  for (auto& t : tuples) t.wm = t.ts + 3;
  for (const std::int64_t lateness : {0, 2})
    this->template check<window::SumAggregate<std::int64_t>>(tuples, time_options({{6, 2}}, lateness),
                                                             {100, false});
  // Every other batch of 64 disordered (neighbours swapped), no tuple late.
  shape.step = 1;
  shape.wm_lag = 6;
  tuples = make_stream<std::int64_t>(shape);
  for (std::size_t i = 64; i + 1 < tuples.size(); i += i % 64 == 62 ? 66 : 2)
    std::swap(tuples[i].ts, tuples[i + 1].ts);
  this->template check<window::SumAggregate<std::int64_t>>(tuples, time_options({{5, 1}}), {64, false});
  this->template check<window::SumAggregate<std::int64_t>>(tuples, time_options({{12, 4}}, 1), {64, false});
}

// Event time that jumps by 10^12 now and then, starts beyond 2^40, or both: no pane or window
// may be materialised over a gap.
TYPED_TEST_P(StreamWindowConformance, SparseAndLargeTimestamps) {
  using namespace stream_conformance;
  std::uint64_t seed = 200;
  for (std::int64_t start : {std::int64_t{0}, (std::int64_t{1} << 45) + 12345})
    for (double jump : {0.0, 0.01, 0.3}) {
      StreamShape shape;
      shape.tuples = 800;
      shape.keys = 3;
      shape.start = start;
      shape.step = 3;
      shape.delay = 20;
      shape.jump = jump;
      shape.seed = seed++;
      this->template check_one<window::SumAggregate<std::int64_t>>(
          shape, time_options({{12, 4}, {5, 9}}, 2, 3), {37, true});
      this->template check_one<window::CountAggregate<double>>(shape, time_options({{100, 10}}, 0, 2),
                                                               {800, false});
    }
  // Two tuples 10^12 apart in one batch, the first still pending when the second arrives.
  using A = window::SumAggregate<std::int64_t>;
  const std::vector<window::testing::RefTuple<std::int64_t>> two = {
      {0, 5, 1, 0}, {0, 1'000'000'000'000, 2, 0}, {0, 7, 4, 1'000'000'000'000}, {0, 1'000'000'000'003, 8, 2}};
  for (std::size_t b : {1u, 2u, 4u}) this->template check<A>(two, time_options({{10, 5}}), {b, false});
}

TYPED_TEST_P(StreamWindowConformance, EmptyStreamAndSingleTuple) {
  using namespace stream_conformance;
  using A = window::SumAggregate<std::int64_t>;
  // Nothing pushed at all.
  {
    VariantOperator<TypeParam, A> op(time_options({{4, 2}}), StreamBackendTraits<TypeParam>::config());
    op.finish();
    std::vector<window::WindowResult<std::int64_t>> out;
    EXPECT_EQ(op.poll(out), 0u);
    EXPECT_EQ(op.watermark(), no_watermark);
    EXPECT_EQ(op.counters().tuples_in, 0u);
  }
  const std::vector<window::testing::RefTuple<std::int64_t>> none;
  for (const auto& options : {time_options({{4, 2}}), count_options({{1, 1}})})
    this->template check<A>(none, options, {0, false});  // one empty batch
  for (std::int64_t wm : {no_watermark, std::int64_t{0}, std::int64_t{100}}) {
    const std::vector<window::testing::RefTuple<std::int64_t>> one = {{42, 9, 5, wm}};
    for (const auto& options : {time_options({{4, 2}}), time_options({{4, 2}}, 200), time_options({{3, 7}}),
                                count_options({{1, 1}}), count_options({{2, 1}})})
      this->template check<A>(one, options, {0, false});
  }
}

// Count windows: timestamps ignored (but disordered), per-key positions, only full windows.
TYPED_TEST_P(StreamWindowConformance, CountWindows) {
  using namespace stream_conformance;
  std::uint64_t seed = 300;
  for (auto spec :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 2}, {5, 3}, {3, 5}, {4, 4}, {1, 1}, {64, 1}})
    for (std::uint32_t keys : {1u, 7u, 500u}) {
      StreamShape shape;
      shape.tuples = 1500;
      shape.keys = keys;
      shape.delay = 50;
      shape.wm_down = 0.1;
      shape.seed = seed++;
      this->template check_one<window::SumAggregate<std::int32_t>>(shape, count_options({spec}, 3),
                                                                   {100, true});
      if (keys == 7) this->template check_all_aggregates<float>(shape, count_options({spec}), {1500, false});
    }
}

// Several specifications over one stream share one pane stage (pane = gcd of all).
TYPED_TEST_P(StreamWindowConformance, SeveralSpecsAtOnce) {
  using namespace stream_conformance;
  StreamShape shape;
  shape.tuples = 2000;
  shape.keys = 4;
  shape.step = 2;
  shape.delay = 60;
  shape.wm_lag = 40;
  shape.seed = 400;
  this->template check_all_aggregates<std::int64_t>(
      shape, time_options({{10, 4}, {6, 6}, {3, 7}, {100, 25}}, 4, 5), {150, true});
  this->template check_all_aggregates<double>(shape, count_options({{4, 2}, {6, 3}, {2, 5}}, 2), {150, true});
}

// One tuple per batch up to the whole stream in one, and random sizes with empty batches.
TYPED_TEST_P(StreamWindowConformance, BatchSizes) {
  using namespace stream_conformance;
  StreamShape shape;
  shape.tuples = 600;
  shape.keys = 3;
  shape.delay = 20;
  shape.wm_lag = 15;
  shape.seed = 500;
  for (Batching b : {Batching{1, false}, Batching{2, false}, Batching{17, false}, Batching{500, false},
                     Batching{0, false}, Batching{5, true}}) {
    this->template check_one<window::SumAggregate<std::int64_t>>(shape, time_options({{8, 2}}, 1), b);
    this->template check_one<window::AvgAggregate<float>>(shape, time_options({{8, 2}}, 1), b);
    this->template check_one<window::CountAggregate<std::int32_t>>(shape, count_options({{8, 2}}), b);
  }
}

// Watermarks that go down are ignored and counted; tuples without a watermark
// (no_watermark) change nothing.
TYPED_TEST_P(StreamWindowConformance, WatermarksThatGoDown) {
  using namespace stream_conformance;
  StreamShape shape;
  shape.tuples = 1500;
  shape.keys = 2;
  shape.step = 2;
  shape.delay = 30;
  shape.wm_lag = 10;
  shape.wm_down = 0.25;
  shape.wm_none = 0.1;
  shape.seed = 600;
  this->template check_one<window::SumAggregate<std::int64_t>>(shape, time_options({{10, 5}}, 2), {40, true});
  this->template check_one<window::MaxAggregate<double>>(shape, time_options({{10, 5}}), {1, false});
  this->template check_one<window::SumAggregate<std::int64_t>>(shape, count_options({{10, 5}}), {40, true});
  shape.wm_none = 1.0;  // no watermark at all: everything fires at finish
  this->template check_one<window::SumAggregate<std::int64_t>>(shape, time_options({{10, 5}}), {40, true});
}

// A negative timestamp is an error naming the tuple; the operator is unchanged and goes on.
TYPED_TEST_P(StreamWindowConformance, NegativeTimestampIsRejected) {
  using namespace stream_conformance;
  using A = window::SumAggregate<std::int64_t>;
  for (const auto& options : {time_options({{6, 3}}, 1), count_options({{6, 3}})}) {
    SCOPED_TRACE(describe(options));
    StreamShape shape;
    shape.tuples = 400;
    shape.keys = 3;
    shape.delay = 10;
    shape.seed = 700;
    const auto tuples = make_stream<std::int64_t>(shape);
    std::vector<RefTuple<std::int64_t>> want_tuples(tuples.begin(), tuples.begin() + 200);
    want_tuples.insert(want_tuples.end(), tuples.begin() + 300, tuples.end());  // without the rejected batch
    const auto want = window::testing::reference_windows<A>(want_tuples, options);

    VariantOperator<TypeParam, A> op(options, StreamBackendTraits<TypeParam>::config());
    std::vector<window::WindowResult<std::int64_t>> got;
    op.push(BatchColumns<std::int64_t>(tuples, 0, 200).batch());
    op.poll(got);
    const auto before = op.counters();
    const auto wm_before = op.watermark();
    BatchColumns<std::int64_t> bad(tuples, 200, 300);
    bad.timestamps[37] = -1;
    try {
      op.push(bad.batch());
      ADD_FAILURE() << "a negative timestamp was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input) << e.what();
      EXPECT_NE(std::string(e.what()).find("37"), std::string::npos) << e.what();
    }
    EXPECT_EQ(op.watermark(), wm_before);
    EXPECT_EQ(op.counters().tuples_in, before.tuples_in);
    EXPECT_EQ(op.counters().late_dropped, before.late_dropped);
    EXPECT_EQ(op.counters().watermarks_ignored, before.watermarks_ignored);
    EXPECT_EQ(op.poll(got), 0u);
    op.push(BatchColumns<std::int64_t>(tuples, 300, 400).batch());
    op.finish();
    op.poll(got);
    window::testing::sort_results(got);
    EXPECT_TRUE(same_results(got, want, 0));
  }
}

// Columns of different lengths are an error; the operator is unchanged.
TYPED_TEST_P(StreamWindowConformance, MismatchedColumnsAreRejected) {
  using namespace stream_conformance;
  using A = window::SumAggregate<std::int64_t>;
  VariantOperator<TypeParam, A> op(time_options({{4, 2}}), StreamBackendTraits<TypeParam>::config());
  const std::vector<window::StreamKey> keys = {1, 2};
  const std::vector<std::int64_t> ts = {1, 2, 3}, values = {1, 2, 3}, wms = {1, 2};
  for (const window::StreamBatch<std::int64_t>& bad :
       {window::StreamBatch<std::int64_t>{keys, ts, values, {}},
        window::StreamBatch<std::int64_t>{{}, ts, values, wms},
        window::StreamBatch<std::int64_t>{{}, std::span(ts).first(2), values, {}}}) {
    EXPECT_THROW(op.push(bad), Error);
    EXPECT_EQ(op.counters().tuples_in, 0u);
    EXPECT_EQ(op.watermark(), no_watermark);
  }
  op.push({{}, ts, values, {}});
  op.finish();
  std::vector<window::WindowResult<std::int64_t>> out;
  op.poll(out);
  window::testing::sort_results(out);
  ASSERT_EQ(out.size(), 2u);  // [0,4) = 6, [2,6) = 5; [-2, 2) does not exist (aligned to 0)
  EXPECT_EQ(out[0].value, 6);
  EXPECT_EQ(out[1].value, 5);
}

TYPED_TEST_P(StreamWindowConformance, PushAfterFinishIsRejected) {
  using namespace stream_conformance;
  using A = window::SumAggregate<std::int64_t>;
  VariantOperator<TypeParam, A> op(time_options({{4, 2}}), StreamBackendTraits<TypeParam>::config());
  const std::vector<std::int64_t> ts = {1}, values = {5};
  op.push({{}, ts, values, {}});
  op.finish();
  op.finish();  // harmless
  try {
    op.push({{}, ts, values, {}});
    ADD_FAILURE() << "push after finish was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
  std::vector<window::WindowResult<std::int64_t>> out;
  EXPECT_EQ(op.poll(out), 1u);  // [0,4) only: [-2,2) is not a window
  EXPECT_EQ(op.counters().tuples_in, 1u);
}

// Time windows accept timestamps up to geometry().max_timestamp (every window holding one ends
// and fires within int64) and reject larger ones naming the tuple and the limit; the operator
// is unchanged and goes on. Count windows ignore timestamps.
TYPED_TEST_P(StreamWindowConformance, TimestampLimit) {
  using namespace stream_conformance;
  using A = window::SumAggregate<std::int64_t>;
  const auto options = time_options({{10, 5}, {7, 3}}, 4);
  VariantOperator<TypeParam, A> op(options, StreamBackendTraits<TypeParam>::config());
  const std::int64_t limit = op.geometry().max_timestamp;
  EXPECT_EQ(limit, INT64_MAX - (std::int64_t{1} << 42) - 4 - 15);
  for (const std::int64_t bad_ts : {limit + 1, INT64_MAX}) {
    const std::vector<std::int64_t> ts = {limit - 20, bad_ts}, values = {1, 2};
    try {
      op.push({{}, ts, values, {}});
      ADD_FAILURE() << "timestamp " << bad_ts << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      const std::string what = e.what();
      EXPECT_NE(what.find("tuple 1"), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(bad_ts)), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(limit)), std::string::npos) << what;
    }
    EXPECT_EQ(op.counters().tuples_in, 0u);
  }
  const std::vector<std::int64_t> ts = {limit - 1, limit}, values = {3, 4}, wms = {0, INT64_MAX};
  op.push({{}, ts, values, wms});  // the watermark INT64_MAX fires every window at once
  std::vector<window::WindowResult<std::int64_t>> got;
  op.poll(got);
  op.finish();
  op.poll(got);
  window::testing::sort_results(got);
  std::vector<window::testing::RefTuple<std::int64_t>> tuples = {{0, limit - 1, 3, 0},
                                                                 {0, limit, 4, INT64_MAX}};
  const auto want = window::testing::reference_windows<A>(tuples, options);
  EXPECT_TRUE(same_results(got, want, 0));
  for (const auto& r : got) {
    EXPECT_GT(r.end, r.start);
    EXPECT_GT(r.end, limit - 1);
  }
  // Count windows: any timestamp >= 0.
  VariantOperator<TypeParam, A> counts(count_options({{2, 1}}), StreamBackendTraits<TypeParam>::config());
  const std::vector<std::int64_t> far = {INT64_MAX, INT64_MAX};
  counts.push({{}, far, values, {}});
  counts.finish();
  std::vector<window::WindowResult<std::int64_t>> out;
  ASSERT_EQ(counts.poll(out), 1u);
  EXPECT_EQ(out[0].value, 7);
}

// Integer aggregates are exact at the extremes of int64: sums in 128 bits (an intermediate
// overflow that comes back is fine; a window sum outside int64 is an error naming key and
// window), avg from the exact sum, var from exact sums (1e18, 1e18 + 1, 1e18 + 2 -> 2/3).
// Floating sums that overflow to infinity are errors. The panes of a window are split over
// batches and keys so that combines across panes and batches are exercised.
TYPED_TEST_P(StreamWindowConformance, IntegerExtremes) {
  using namespace stream_conformance;
  constexpr std::int64_t big = INT64_MAX, small = INT64_MIN;
  const auto options = time_options({{10, 10}});
  const auto run = [&](auto a, const std::vector<std::int64_t>& ts, const auto& values) {
    using A = decltype(a);
    VariantOperator<TypeParam, A> op(options, StreamBackendTraits<TypeParam>::config());
    for (std::size_t i = 0; i < ts.size(); ++i) {  // one tuple per batch, key 3
      const std::vector<window::StreamKey> keys = {3};
      const std::vector<std::int64_t> t = {ts[i]};
      const std::vector<typename A::Input> v = {values[i]};
      op.push({keys, t, v, {}});
    }
    op.finish();
    std::vector<window::WindowResult<typename A::Output>> out;
    op.poll(out);
    window::testing::sort_results(out);
    return out;
  };
  const std::vector<std::int64_t> ts3 = {1, 5, 9};
  {
    const auto s = run(window::SumAggregate<std::int64_t>{}, ts3, std::vector<std::int64_t>{big, 1, -2});
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].value, big - 1);
    const auto lo = run(window::SumAggregate<std::int64_t>{}, ts3, std::vector<std::int64_t>{small, -1, 1});
    ASSERT_EQ(lo.size(), 1u);
    EXPECT_EQ(lo[0].value, small);
    const auto mn = run(window::MinAggregate<std::int64_t>{}, ts3, std::vector<std::int64_t>{big, small, 0});
    EXPECT_EQ(mn.at(0).value, small);
    const auto mx = run(window::MaxAggregate<std::int64_t>{}, ts3, std::vector<std::int64_t>{big, small, 0});
    EXPECT_EQ(mx.at(0).value, big);
  }
  for (const auto& values : {std::vector<std::int64_t>{big, 1, 0}, std::vector<std::int64_t>{small, -1, 0}}) {
    VariantOperator<TypeParam, window::SumAggregate<std::int64_t>> op(
        options, StreamBackendTraits<TypeParam>::config());
    const std::vector<window::StreamKey> keys = {3, 3, 3};
    const std::vector<std::int64_t> ts = {1, 5, 12}, wms = {0, 0, 11};  // fires [0, 10) on push
    try {
      op.push({keys, ts, values, wms});
      ADD_FAILURE() << "an int64 sum overflow was not reported";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      const std::string what = e.what();
      EXPECT_NE(what.find("key 3"), std::string::npos) << what;
      EXPECT_NE(what.find("[0, 10)"), std::string::npos) << what;
      EXPECT_NE(what.find("int64"), std::string::npos) << what;
    }
    EXPECT_THROW(op.push({keys, ts, values, wms}), Error);  // the operator has failed
  }
  const auto avg = run(window::AvgAggregate<std::int64_t>{}, std::vector<std::int64_t>{1, 8},
                       std::vector<std::int64_t>{9'000'000'000'000'000'000, 9'000'000'000'000'000'000});
  ASSERT_EQ(avg.size(), 1u);
  EXPECT_EQ(avg[0].value, 9e18);
  const auto avg_ext =
      run(window::AvgAggregate<std::int64_t>{}, ts3, std::vector<std::int64_t>{big, big, small});
  EXPECT_EQ(avg_ext.at(0).value, static_cast<double>((big - 1) / 3));  // (2^63 - 2) / 3, an integer
  const auto var = run(window::VarAggregate<std::int64_t>{}, ts3,
                       std::vector<std::int64_t>{1'000'000'000'000'000'000, 1'000'000'000'000'000'001,
                                                 1'000'000'000'000'000'002});
  ASSERT_EQ(var.size(), 1u);
  EXPECT_NEAR(var[0].value, 2.0 / 3.0, 1e-12);
  const auto var_ext = run(window::VarAggregate<std::int64_t>{}, std::vector<std::int64_t>{1, 8},
                           std::vector<std::int64_t>{big, small});
  EXPECT_NEAR(var_ext.at(0).value, 0x1.0p126, 0x1.0p126 * 1e-15);  // ((2^64 - 1) / 2)^2
  const auto var32 = run(window::VarAggregate<std::int32_t>{}, ts3, std::vector<std::int32_t>{7, 7, 7});
  EXPECT_EQ(var32.at(0).value, 0.0);

  // Doubles: a sum that overflows to infinity is an error, for sum, avg and var.
  const std::vector<double> huge = {1e308, 1e308, 1.0};
  const auto expect_not_finite = [&](auto a) {
    using A = decltype(a);
    try {
      run(a, ts3, huge);
      ADD_FAILURE() << A::name << ": an infinite result was emitted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input) << e.what();
      EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("key 3"), std::string::npos) << e.what();
    }
  };
  expect_not_finite(window::SumAggregate<double>{});
  expect_not_finite(window::AvgAggregate<double>{});
  expect_not_finite(window::VarAggregate<double>{});
  const auto fmax = run(window::MaxAggregate<double>{}, ts3, huge);  // max never overflows
  EXPECT_EQ(fmax.at(0).value, 1e308);
}

// advance_watermark: a watermark without tuples fires the windows it completes, a lower one is
// ignored and counted, a tuple below it is late; worked out by hand.
TYPED_TEST_P(StreamWindowConformance, WatermarksWithoutTuples) {
  using namespace stream_conformance;
  using A = window::SumAggregate<std::int64_t>;
  VariantOperator<TypeParam, A> op(time_options({{10, 10}}), StreamBackendTraits<TypeParam>::config());
  const std::vector<window::StreamKey> keys = {0, 0, 1};
  const std::vector<std::int64_t> ts = {1, 12, 4}, values = {5, 7, 11};
  op.push({keys, ts, values, {}});
  std::vector<window::WindowResult<std::int64_t>> out;
  EXPECT_EQ(op.poll(out), 0u);
  op.advance_watermark(10);
  ASSERT_EQ(op.poll(out), 2u);
  window::testing::sort_results(out);
  EXPECT_EQ(out[0], (window::WindowResult<std::int64_t>{0, 0, 0, 10, 5}));
  EXPECT_EQ(out[1], (window::WindowResult<std::int64_t>{0, 1, 0, 10, 11}));
  op.advance_watermark(7);
  EXPECT_EQ(op.counters().watermarks_ignored, 1u);
  EXPECT_EQ(op.watermark(), 10);
  const std::vector<std::int64_t> late_ts = {3}, late_value = {100};
  op.push({{}, late_ts, late_value, {}});
  EXPECT_EQ(op.counters().late_dropped, 1u);
  out.clear();
  op.advance_watermark(20);
  ASSERT_EQ(op.poll(out), 1u);
  EXPECT_EQ(out[0], (window::WindowResult<std::int64_t>{0, 0, 10, 20, 7}));
  op.finish();
  EXPECT_EQ(op.poll(out), 0u);
  EXPECT_THROW(op.advance_watermark(30), Error);
}

REGISTER_TYPED_TEST_SUITE_P(StreamWindowConformance, HandWorkedExample, TimeWindowShapes, LongPanes,
                            EveryAggregateEveryValueType, TenThousandKeys, DelaysLatenessAndLateTuples,
                            OneKeyWithTightWatermarks, InOrderStreams, SparseAndLargeTimestamps,
                            EmptyStreamAndSingleTuple, CountWindows, SeveralSpecsAtOnce, BatchSizes,
                            WatermarksThatGoDown, NegativeTimestampIsRejected, MismatchedColumnsAreRejected,
                            PushAfterFinishIsRejected, TimestampLimit, IntegerExtremes,
                            WatermarksWithoutTuples);

}  // namespace sextant::testing

// Instantiates the whole suite for `Backend` (a fully qualified type) under `Prefix`.
#define INSTANTIATE_STREAM_WINDOW_CONFORMANCE(Prefix, Backend)                                \
  namespace sextant::testing {                                                                \
  INSTANTIATE_TYPED_TEST_SUITE_P(Prefix, StreamWindowConformance, ::testing::Types<Backend>); \
  }                                                                                           \
  static_assert(true, "")
