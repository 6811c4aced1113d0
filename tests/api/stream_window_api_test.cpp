// The type-erased stream-window facade (api/stream_window.hpp): every value type and aggregate
// against the independent reference, result types and exact formatting, and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "api/stream_window.hpp"
#include "api/stream_window_custom.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "datagen/stream_generator.hpp"
#include "support/stream_watermark_conformance.hpp"
#include "testing/stream_window_reference.hpp"

namespace sextant::window {
namespace {

using ::testing::HasSubstr;

StreamWindowOptions two_specs() {
  StreamWindowOptions options;
  options.specs = {{WindowType::time, 60, 20}, {WindowType::time, 25, 25}};
  options.lateness = 3;
  options.windows_per_tree = 4;
  return options;
}

// A small out-of-order stream (exponential delays, a tight watermark bound: late tuples).
datagen::StreamGeneratorSpec small_stream() {
  datagen::StreamGeneratorSpec spec;
  spec.n = 3000;
  spec.keys = 7;
  spec.rate = 2;
  spec.delay = 15;
  spec.delay_distribution = datagen::DelayDistribution::exponential;
  spec.watermark_bound = 20;
  spec.seed = 11;
  return spec;
}

template <class V, class A>
void check_against_reference(const StreamWindowOptions& options) {
  const auto spec = small_stream();
  const auto tuples = datagen::generate_stream(spec);
  const datagen::StreamField field =
      std::is_integral_v<V> ? datagen::StreamField::int_value : datagen::StreamField::float_value;
  const auto columns = datagen::project<V>(tuples, field, spec.bound());
  std::vector<testing::RefTuple<V>> ref;
  for (std::size_t i = 0; i < columns.size(); ++i)
    ref.push_back({columns.keys[i], columns.timestamps[i], columns.values[i], columns.watermarks[i]});
  testing::ReferenceCounts counts;
  const auto want = testing::reference_windows<A>(ref, options, &counts);

  StreamAggregateKind kind = parse_stream_aggregate("agg", A::name);
  StreamWindow op(value_type_of<V>, kind, options);
  ASSERT_EQ(op.result_type(), value_type_of<typename A::Output>);
  StreamResults got;
  for (std::size_t first = 0; first < columns.size(); first += 500) {
    op.push(columns.batch(first, std::min<std::size_t>(500, columns.size() - first)));
    op.poll(got);
  }
  op.finish();
  op.poll(got);
  got.sort();
  const StreamCounters c = op.counters();
  EXPECT_EQ(c.tuples_in, columns.size());
  EXPECT_EQ(c.late_dropped, counts.late);
  EXPECT_GT(c.late_dropped, 0u);
  EXPECT_EQ(c.windows_emitted, want.size());
  ASSERT_EQ(got.size(), want.size()) << A::name;
  const auto values = got.values_as<typename A::Output>();
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got.specs[i], want[i].spec) << i;
    ASSERT_EQ(got.keys[i], want[i].key) << i;
    ASSERT_EQ(got.starts[i], want[i].start) << i;
    ASSERT_EQ(got.ends[i], want[i].end) << i;
    if constexpr (std::is_integral_v<typename A::Output> || std::is_same_v<A, MinAggregate<V>> ||
                  std::is_same_v<A, MaxAggregate<V>>)
      EXPECT_EQ(values[i], want[i].value) << A::name << " " << i;
    else
      EXPECT_NEAR(values[i], want[i].value,
                  1e-9 * std::max(1.0, std::fabs(static_cast<double>(want[i].value))))
          << A::name << " " << i;
  }
}

template <class V>
void check_every_aggregate() {
  const StreamWindowOptions options = two_specs();
  check_against_reference<V, SumAggregate<V>>(options);
  check_against_reference<V, CountAggregate<V>>(options);
  check_against_reference<V, MinAggregate<V>>(options);
  check_against_reference<V, MaxAggregate<V>>(options);
  check_against_reference<V, AvgAggregate<V>>(options);
  check_against_reference<V, VarAggregate<V>>(options);
}

TEST(StreamWindowApi, Int32MatchesTheReference) {
  check_every_aggregate<std::int32_t>();
}
TEST(StreamWindowApi, Int64MatchesTheReference) {
  check_every_aggregate<std::int64_t>();
}
TEST(StreamWindowApi, FloatMatchesTheReference) {
  check_every_aggregate<float>();
}
TEST(StreamWindowApi, DoubleMatchesTheReference) {
  check_every_aggregate<double>();
}

TEST(StreamWindowApi, ResultTypes) {
  using enum StreamAggregateKind;
  EXPECT_EQ(stream_result_type(ValueType::int32, sum), ValueType::int64);
  EXPECT_EQ(stream_result_type(ValueType::float32, sum), ValueType::float64);
  EXPECT_EQ(stream_result_type(ValueType::float32, count), ValueType::int64);
  EXPECT_EQ(stream_result_type(ValueType::int32, min), ValueType::int32);
  EXPECT_EQ(stream_result_type(ValueType::float32, max), ValueType::float32);
  EXPECT_EQ(stream_result_type(ValueType::int64, avg), ValueType::float64);
  EXPECT_EQ(stream_result_type(ValueType::int32, var), ValueType::float64);
}

// Rows fired in the order of `row(i, spec, key, start)` for i in [0, n), each row's value and
// timestamp its firing position, to see the order that ties keep.
template <class Row>
StreamResults fired_rows(std::size_t n, const Row& row) {
  StreamResults fired;
  ColumnVector<std::int64_t> position(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t spec = 0;
    StreamKey key = 0;
    std::int64_t start = 0;
    row(i, spec, key, start);
    fired.specs.push_back(spec);
    fired.keys.push_back(key);
    fired.starts.push_back(start);
    fired.ends.push_back(start + 100);
    fired.times.push_back(static_cast<std::int64_t>(i));
    position[i] = static_cast<std::int64_t>(i);
  }
  fired.values = position;
  return fired;
}

// sort() and order() on 1, 3, 4 and every thread against std::stable_sort by (spec, key, start).
void expect_canonical_order(const StreamResults& fired) {
  const std::size_t n = fired.size();
  std::vector<std::size_t> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = i;
  std::stable_sort(want.begin(), want.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(fired.specs[a], fired.keys[a], fired.starts[a]) <
           std::tie(fired.specs[b], fired.keys[b], fired.starts[b]);
  });
  for (const int threads : {1, 3, 4, 0}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const ColumnVector<std::size_t> order = fired.order(threads);
    EXPECT_TRUE(std::equal(order.begin(), order.end(), want.begin(), want.end()));
    StreamResults r = fired;
    r.sort(threads);
    ASSERT_EQ(r.size(), n);
    const auto values = r.values_as<std::int64_t>();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t w = want[i];
      wrong += values[i] != static_cast<std::int64_t>(w) || r.times[i] != static_cast<std::int64_t>(w) ||
               r.specs[i] != fired.specs[w] || r.keys[i] != fired.keys[w] || r.starts[i] != fired.starts[w] ||
               r.ends[i] != fired.ends[w];
    }
    EXPECT_EQ(wrong, 0u);
  }
}

std::uint64_t next_random(std::uint64_t& x) {
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

// The canonical order for any thread count: rows in random order with ties everywhere (every
// (spec, key) out of start order), rows as an operator fires them (each (spec, key)'s starts
// increasing; keys spread over 32 bits and specs far apart, so the radix takes several passes),
// the same with a few windows fired again late, one (spec, key), one row and none. A negative
// thread count is refused.
TEST(StreamWindowApi, SortOnThreadsIsTheStableOrder) {
  constexpr std::size_t n = 300007;  // uneven slices on 3 and 4 threads
  std::uint64_t x = 12345;
  {
    SCOPED_TRACE("random, ties everywhere");
    expect_canonical_order(
        fired_rows(n, [&](std::size_t, std::uint32_t& spec, StreamKey& key, std::int64_t& start) {
          next_random(x);
          spec = static_cast<std::uint32_t>((x >> 60) % 2);
          key = static_cast<StreamKey>((x >> 40) % 97);
          start = static_cast<std::int64_t>((x >> 20) % 11) - 5;
        }));
  }
  constexpr std::size_t keys_per_poll = 1000;
  std::vector<StreamKey> wide_keys(keys_per_poll);
  for (auto& k : wide_keys) k = static_cast<StreamKey>(next_random(x) >> 32);
  wide_keys[0] = 0;
  wide_keys[1] = std::numeric_limits<StreamKey>::max();
  const auto as_fired = [&](std::size_t i, std::uint32_t& spec, StreamKey& key, std::int64_t& start) {
    const std::size_t poll = i / (2 * keys_per_poll), at = i % (2 * keys_per_poll);
    spec = at % 2 == 0 ? 7u : 0x80000000u;
    key = wide_keys[(at / 2 * 7919) % keys_per_poll];  // every poll in another key order
    start = static_cast<std::int64_t>(poll) * 10 - 1000;
  };
  {
    SCOPED_TRACE("as fired, wide keys and specs");
    expect_canonical_order(fired_rows(n, as_fired));
  }
  {
    SCOPED_TRACE("as fired, a few windows fired again late");
    expect_canonical_order(
        fired_rows(n, [&](std::size_t i, std::uint32_t& spec, StreamKey& key, std::int64_t& start) {
          as_fired(i, spec, key, start);
          if (i % 4999 == 17)
            start -= 30 + static_cast<std::int64_t>(i % 3) * 10;  // ties with earlier windows too
        }));
  }
  {
    SCOPED_TRACE("the extremes: specs 0 and 2^32 - 1, keys 0 and 2^32 - 1 (64-bit groups)");
    constexpr std::uint32_t top = std::numeric_limits<std::uint32_t>::max();
    const StreamResults extremes =
        fired_rows(90001, [&](std::size_t i, std::uint32_t& spec, StreamKey& key, std::int64_t& start) {
          next_random(x);
          spec = (x >> 63) != 0 ? top : 0;
          key = (x >> 62 & 1) != 0 ? top : static_cast<StreamKey>(x >> 50 & 7);
          start = static_cast<std::int64_t>(i / 8) - ((x >> 40) % 13 == 0 ? 3 : 0);
        });
    EXPECT_EQ(extremes.groups(2).bits, 64u);
    EXPECT_EQ(extremes.groups(2)(top, top), std::numeric_limits<std::uint64_t>::max());
    expect_canonical_order(extremes);
  }
  {
    SCOPED_TRACE("one (spec, key)");
    expect_canonical_order(
        fired_rows(70000, [&](std::size_t i, std::uint32_t& spec, StreamKey& key, std::int64_t& start) {
          spec = 3;
          key = 42;
          start = static_cast<std::int64_t>(i / 3) - (i % 1000 == 999 ? 500 : 0);
        }));
  }
  for (const std::size_t rows : {std::size_t{1}, std::size_t{0}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    expect_canonical_order(
        fired_rows(rows, [&](std::size_t, std::uint32_t& spec, StreamKey& key, std::int64_t& start) {
          spec = 1;
          key = 5;
          start = -7;
        }));
  }
  StreamResults r = fired_rows(3, [](std::size_t, std::uint32_t&, StreamKey&, std::int64_t&) {});
  EXPECT_THROW(r.sort(-1), Error);
  EXPECT_THROW((void)r.order(-1), Error);
}

TEST(StreamWindowApi, ValuesPrintExactly) {
  StreamResults r;
  r.specs = {0, 0, 1};
  r.keys = {5, 2, 0};
  r.starts = {10, 30, 0};
  r.ends = {20, 40, 5};
  r.values = sextant::ColumnVector<float>{0.1f, -3.0f, 16777216.0f};
  r.sort();
  EXPECT_EQ(r.keys, (sextant::ColumnVector<StreamKey>{2, 5, 0}));
  std::string text;
  for (std::size_t i = 0; i < r.size(); ++i) {
    r.append_value(text, i);
    text += ' ';
  }
  EXPECT_EQ(text, "-3 0.1 16777216 ");
  r.values = sextant::ColumnVector<std::int64_t>{INT64_MIN, 0, 9007199254740993};
  text.clear();
  for (std::size_t i = 0; i < r.size(); ++i) r.append_value(text, i), text += ' ';
  EXPECT_EQ(text, "-9223372036854775808 0 9007199254740993 ");
  r.clear();
  EXPECT_EQ(r.size(), 0u);
}

TEST(StreamWindowApi, Errors) {
  StreamWindowOptions bad;
  bad.specs = {{WindowType::time, 0, 5}};
  EXPECT_THROW(StreamWindow(ValueType::int32, StreamAggregateKind::sum, bad), Error);

  StreamWindow op(ValueType::int64, StreamAggregateKind::sum, two_specs(), {.threads = 2});
  EXPECT_THAT(op.describe(), HasSubstr("cpu"));
  const std::vector<std::int64_t> ts{1, -1}, wm{0, 0};
  const std::vector<double> doubles{1, 2};
  try {
    op.push(StreamBatch<double>{{}, ts, doubles, wm});
    ADD_FAILURE() << "a batch of doubles pushed into an int64 operator";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("another value type"));
  }
  const std::vector<std::int64_t> values{1, 2};
  try {
    op.push(StreamBatch<std::int64_t>{{}, ts, values, wm});
    ADD_FAILURE() << "a negative timestamp was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::bad_input));
  }
  StreamResults wrong;
  wrong.specs = {0};
  wrong.keys = {0};
  wrong.starts = {0};
  wrong.ends = {1};
  wrong.values = sextant::ColumnVector<double>{1};
  EXPECT_THROW(op.poll(wrong), Error);
  op.finish();
  EXPECT_THROW(op.push(StreamBatch<std::int64_t>{}), Error);
}

TEST(StreamWindowApi, HostMemoryIsAligned) {
  StreamWindow op(ValueType::float32, StreamAggregateKind::max, two_specs());
  const HostBuffer b = op.allocate_host(1000);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 64, 0u);
  EXPECT_EQ(b.bytes(), 1000u);
  b.as<float>(250)[249] = 1.0f;
}

TEST(StreamWindowApi, GpuWithoutCudaIsUnsupported) {
  if (build::has_cuda) GTEST_SKIP() << "this build has CUDA";
  try {
    StreamWindow op(ValueType::int32, StreamAggregateKind::sum, two_specs(),
                    {.device = {DeviceKind::gpu, 0}});
    ADD_FAILURE() << "a GPU operator in a build without CUDA";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::unsupported));
    EXPECT_THAT(e.what(), HasSubstr("no CUDA support"));
  }
}

// ---- watermarks without tuples, typed accessors, user-defined aggregates ----------------------

TEST(StreamWindowApi, HeartbeatsFireWindows) {
  testing::expect_heartbeats_fire_windows({});
}

TEST(StreamWindowApi, HeartbeatsEqualTupleWatermarks) {
  testing::expect_heartbeats_equal_tuple_watermarks({});
  testing::expect_heartbeats_equal_tuple_watermarks({.threads = 1});
}

TEST(StreamWindowApi, CountWindowsIgnoreHeartbeats) {
  StreamWindowOptions options;
  options.specs = {{WindowType::count, 2, 2}};
  StreamWindow op(ValueType::int32, StreamAggregateKind::sum, options);
  const std::vector<std::int64_t> ts{0, 0, 0};
  const std::vector<std::int32_t> values{1, 2, 3};
  op.push(StreamBatch<std::int32_t>{{}, ts, values, {}});
  op.advance_watermark(1000);
  op.finish();
  StreamResults r;
  ASSERT_EQ(op.poll(r), 1u);  // only the full window [0, 2)
  EXPECT_EQ(r.values_as<std::int64_t>()[0], 3);
}

TEST(StreamWindowApi, TypedAccessorsNameBothTypes) {
  StreamResults r;
  r.values = sextant::ColumnVector<double>{1.5};
  EXPECT_EQ(r.values_as<double>()[0], 1.5);
  EXPECT_EQ(r.value_type(), ValueType::float64);
  try {
    (void)r.values_as<std::int64_t>();
    ADD_FAILURE() << "read doubles as int64";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::bad_argument));
    EXPECT_THAT(e.what(), HasSubstr("double"));
    EXPECT_THAT(e.what(), HasSubstr("int64"));
  }
}

// A user-defined aggregate, written here as a user would: max - min of double values.
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
static_assert(StreamAggregate<Range>);

// One that lifts with the tuple's timestamp: the latest timestamp among the window's tuples.
struct LatestTime {
  static constexpr std::string_view name = "latest-time";
  using Input = std::int32_t;
  using Acc = std::int64_t;
  using Output = std::int64_t;
  static Acc identity() { return std::numeric_limits<std::int64_t>::min(); }
  static Acc lift(std::int32_t, TupleContext c) { return c.at; }
  static Acc combine(Acc a, Acc b) { return std::max(a, b); }
  static Output lower(Acc a) { return a; }
};

template <class A>
void check_custom_against_reference() {
  using V = typename A::Input;
  const auto spec = small_stream();
  const auto columns = datagen::project<V>(
      datagen::generate_stream(spec),
      std::is_integral_v<V> ? datagen::StreamField::int_value : datagen::StreamField::float_value,
      spec.bound());
  std::vector<testing::RefTuple<V>> ref;
  for (std::size_t i = 0; i < columns.size(); ++i)
    ref.push_back({columns.keys[i], columns.timestamps[i], columns.values[i], columns.watermarks[i]});
  const auto want = testing::reference_windows<A>(ref, two_specs());
  StreamWindow op = StreamWindow::with_aggregate<A>(two_specs(), {.threads = 2});
  EXPECT_TRUE(op.is_custom());
  EXPECT_EQ(op.aggregate_name(), A::name);
  EXPECT_EQ(op.result_type(), value_type_of<typename A::Output>);
  StreamResults got;
  for (std::size_t first = 0; first < columns.size(); first += 700) {
    op.push(columns.batch(first, std::min<std::size_t>(700, columns.size() - first)));
    op.advance_watermark(columns.watermarks[std::min(columns.size(), first + 700) - 1]);
  }
  op.finish();
  op.poll(got);
  got.sort();
  ASSERT_EQ(got.size(), want.size());
  const auto values = got.values_as<typename A::Output>();
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got.keys[i], want[i].key) << i;
    ASSERT_EQ(got.starts[i], want[i].start) << i;
    ASSERT_EQ(values[i], want[i].value) << i;  // max and min are exact, so is their difference
  }
}

TEST(StreamWindowApi, UserDefinedAggregatesMatchTheReference) {
  check_custom_against_reference<Range>();
  check_custom_against_reference<LatestTime>();
}

TEST(StreamWindowApi, UserDefinedAggregateOnAGpuIsRefused) {
  try {
    (void)StreamWindow::with_aggregate<Range>(two_specs(), {.device = {DeviceKind::gpu, 0}});
    ADD_FAILURE() << "a user-defined aggregate on a GPU";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::unsupported));
    EXPECT_THAT(e.what(), HasSubstr("range"));
  }
  StreamWindowOptions bad;
  bad.specs = {{WindowType::time, 10, 0}};
  EXPECT_THROW((void)StreamWindow::with_aggregate<Range>(bad), Error);
}

}  // namespace
}  // namespace sextant::window
