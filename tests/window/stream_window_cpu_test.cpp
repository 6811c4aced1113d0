// Stream windows on the CPU: the shared conformance body for the CPU specialisation (one pane
// shard, and several shards forced on small batches so that the per-thread partials and their
// merge are exercised), plus the CPU's own pieces: the pane divider, the key index, a
// user-defined aggregate (the generic, non-built-in path) and rings that grow, overflow and
// shrink. The body for a user-defined aggregate (Sextant::testing) runs on one of them.
#include "cpu/window/stream_window_cpu.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <tuple>

#include "cpu/window/stream_divider.hpp"
#include "cpu/window/stream_key_index.hpp"
#include "cpu/window/stream_pane_scan.hpp"
#include "templates/window/count_window_policy.hpp"
#include "testing/stream_aggregate_conformance.hpp"
#include "tests/window/stream_window_conformance.hpp"

namespace sextant::testing {

// Variants of the one CPU backend (tags: they share its operators, compiled once).
// The same backend, with every batch of 256 tuples or more cut into 2 per-thread slices
// (whatever its tuples per pane).
struct CpuShardedStreamBackend {};

template <>
struct StreamBackendTraits<CpuShardedStreamBackend> {
  using Backend = window::CpuStreamBackend;
  static window::CpuStreamConfig config() { return {2, 128, 0}; }  // split every batch
  static std::string skip_reason() { return {}; }
};

// The same backend with every spec on one window stage, whatever the cost model would pick.
template <window::WindowStageKind Stage>
struct CpuStageStreamBackend {};

template <window::WindowStageKind Stage>
struct StreamBackendTraits<CpuStageStreamBackend<Stage>> {
  using Backend = window::CpuStreamBackend;
  static window::CpuStreamConfig config() { return {}; }
  static std::string skip_reason() { return {}; }
  static void adjust(window::StreamWindowOptions& options) { options.window_stage = Stage; }
};

// The same backend with the dense layout for every time-window stream (count windows have none);
// with `Split`, every batch of 256 tuples or more is cut over 2 threads (ids looked up in slices,
// combines split by key once there are 4096 keys).
template <bool Split>
struct CpuDenseStreamBackend {};

template <bool Split>
struct StreamBackendTraits<CpuDenseStreamBackend<Split>> {
  using Backend = window::CpuStreamBackend;
  static window::CpuStreamConfig config() {
    return Split ? window::CpuStreamConfig{2, 128, 0} : window::CpuStreamConfig{};
  }
  static std::string skip_reason() { return {}; }
  static void adjust(window::StreamWindowOptions& options) {
    if (options.specs.front().type == window::WindowType::time)
      options.window_stage = window::WindowStageKind::dense;
  }
};

}  // namespace sextant::testing

INSTANTIATE_STREAM_WINDOW_CONFORMANCE(Cpu, sextant::window::CpuStreamBackend);
INSTANTIATE_STREAM_WINDOW_CONFORMANCE(CpuShards, sextant::testing::CpuShardedStreamBackend);
INSTANTIATE_STREAM_WINDOW_CONFORMANCE(
    CpuBpat, sextant::testing::CpuStageStreamBackend<sextant::window::WindowStageKind::bpat>);
INSTANTIATE_STREAM_WINDOW_CONFORMANCE(
    CpuScan, sextant::testing::CpuStageStreamBackend<sextant::window::WindowStageKind::scan>);
INSTANTIATE_STREAM_WINDOW_CONFORMANCE(CpuDense, sextant::testing::CpuDenseStreamBackend<false>);
INSTANTIATE_STREAM_WINDOW_CONFORMANCE(CpuDenseShards, sextant::testing::CpuDenseStreamBackend<true>);

namespace sextant::testing {
namespace {

using namespace stream_conformance;

TEST(CpuStreamWindow, PaneDividerMatchesDivision) {
  std::mt19937_64 rng(1);
  std::vector<std::int64_t> divisors = {1,
                                        2,
                                        3,
                                        5,
                                        7,
                                        10,
                                        64,
                                        100,
                                        1000,
                                        1 << 20,
                                        999'999'937,
                                        (std::int64_t{1} << 40) - 1,
                                        std::int64_t{1} << 40};
  for (int i = 0; i < 200; ++i)
    divisors.push_back(std::uniform_int_distribution<std::int64_t>(1, std::int64_t{1} << 40)(rng));
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  for (const std::int64_t d : divisors) {
    const window::detail::PaneDivider div(d);
    std::vector<std::int64_t> ns = {0,   1,       d - 1,   d,           d + 1,          2 * d - 1,
                                    max, max - 1, max - d, max / d * d, max / d * d - 1};
    for (int i = 0; i < 500; ++i) ns.push_back(std::uniform_int_distribution<std::int64_t>(0, max)(rng));
    for (const std::int64_t n : ns)
      if (n >= 0) {
        ASSERT_EQ(div(n), n / d) << n << " / " << d;
      }
  }
}

TEST(CpuStreamWindow, KeyIndexGivesDenseIdsToArbitraryKeys) {
  window::detail::KeyIndex index;
  std::mt19937_64 rng(2);
  std::vector<window::StreamKey> keys;
  for (std::uint32_t k = 0; k < 3000; ++k) keys.push_back(k);                         // direct table
  for (int i = 0; i < 20000; ++i) keys.push_back(static_cast<std::uint32_t>(rng()));  // hashed
  // Below 10^8: the direct table grows while keys are hashed, and the keys it now covers leave
  // the hash table (the rest refill it).
  for (int i = 0; i < 200000; ++i) keys.push_back(static_cast<std::uint32_t>(rng() % 100'000'000));
  keys.push_back(std::numeric_limits<std::uint32_t>::max());
  keys.push_back(5'000'000);
  std::map<window::StreamKey, std::uint32_t> want;
  for (const auto k : keys) {
    const std::uint32_t found = index.find(k);
    if (const auto it = want.find(k); it != want.end()) {
      ASSERT_EQ(found, it->second);
      continue;
    }
    ASSERT_EQ(found, window::detail::KeyIndex::absent) << k;
    const std::uint32_t id = index.insert(k);
    ASSERT_EQ(id, want.size());
    want[k] = id;
  }
  for (const auto& [k, id] : want) ASSERT_EQ(index.find(k), id) << k;
  EXPECT_EQ(index.size(), want.size());
}

// A user-defined aggregate (not one of the built-ins): takes the generic kernel path.
struct BitOrAggregate {
  static constexpr std::string_view name = "bit-or";
  using Input = std::int64_t;
  using Acc = std::uint64_t;
  using Output = std::uint64_t;
  static Acc identity() noexcept { return 0; }
  static Acc lift(Input x) noexcept { return std::uint64_t{1} << (static_cast<std::uint64_t>(x) & 63); }
  static Acc combine(Acc a, Acc b) noexcept { return a | b; }
  static Output lower(Acc a) noexcept { return a; }
};
static_assert(window::StreamBackend<window::CpuStreamBackend, BitOrAggregate>);

class CpuStreamWindowTest : public StreamWindowConformance<window::CpuStreamBackend> {};

TEST_F(CpuStreamWindowTest, UserDefinedAggregate) {
  StreamShape shape;
  shape.tuples = 2000;
  shape.keys = 9;
  shape.delay = 30;
  shape.wm_lag = 20;
  check_one<BitOrAggregate>(shape, time_options({{10, 3}, {4, 4}}, 2), {100, true});
  check_one<BitOrAggregate>(shape, count_options({{5, 2}}), {100, true});
}

// The body Sextant::testing gives a user for their own aggregate (testing/stream_aggregate_conformance.hpp).
TEST(CpuStreamWindow, UserDefinedAggregateThroughTheInstalledBody) {
  expect_stream_aggregate_conforms<BitOrAggregate>();
}

// argmin, argmax, first and last straight from their definitions, over keyed, out-of-order
// tuples with many equal values and equal timestamps (so every tie rule decides), in batches of
// several sizes and on one and two shards: exact values and timestamps.
template <class V>
void check_positional_by_definition(const window::CpuStreamConfig& config, std::size_t batch) {
  std::mt19937_64 rng(77 + batch);
  const std::size_t n = 3000;
  std::vector<window::StreamKey> keys(n);
  std::vector<std::int64_t> ts(n);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<window::StreamKey>(rng() % 3);
    ts[i] = static_cast<std::int64_t>(rng() % 400);  // ~2.5 tuples per timestamp and key
    const int r = static_cast<int>(rng() % 5) - 2;
    values[i] = std::is_floating_point_v<V> && r == 0 && rng() % 2 ? V(-0.0) : static_cast<V>(r);
  }
  const window::StreamWindowOptions options = stream_conformance::time_options({{10, 4}}, 1000);
  // Tie rules: argmin/argmax: the extreme value, then the smallest timestamp; first/last: the
  // smallest/largest timestamp, then the smallest/largest value; -0.0 below +0.0.
  const auto below = [](V a, V b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); };
  const auto expect = [&](int which, window::StreamKey key, std::int64_t start) {
    std::optional<window::Selected<V>> best;
    for (std::size_t i = 0; i < n; ++i) {
      if (keys[i] != key || ts[i] < start || ts[i] >= start + 10) continue;
      const window::Selected<V> c{values[i], ts[i]};
      if (!best) {
        best = c;
        continue;
      }
      bool better = false;
      if (which == 0)
        better = below(c.value, best->value) || (!below(best->value, c.value) && c.at < best->at);
      if (which == 1)
        better = below(best->value, c.value) || (!below(c.value, best->value) && c.at < best->at);
      if (which == 2) better = c.at < best->at || (c.at == best->at && below(c.value, best->value));
      if (which == 3) better = c.at > best->at || (c.at == best->at && below(best->value, c.value));
      if (better) best = c;
    }
    return best;
  };
  int which = 0;
  stream_conformance::for_each_positional_aggregate<V>([&](auto a) {
    using A = decltype(a);
    window::StreamWindowOperator<window::CpuStreamBackend, A> op(options, config);
    for (std::size_t first = 0; first < n; first += batch) {
      const std::size_t m = std::min(batch, n - first);
      op.push({std::span(keys).subspan(first, m),
               std::span(ts).subspan(first, m),
               std::span(values).subspan(first, m),
               {}});
    }
    op.finish();
    std::vector<window::WindowResult<window::Selected<V>>> got;
    op.poll(got);
    ASSERT_FALSE(got.empty());
    std::size_t expected_windows = 0;
    for (window::StreamKey key = 0; key < 3; ++key)
      for (std::int64_t start = 0; start < 400; start += 4)
        expected_windows += expect(which, key, start) ? 1 : 0;
    EXPECT_EQ(got.size(), expected_windows) << A::name;
    for (const auto& r : got) {
      const auto want = expect(which, r.key, r.start);
      ASSERT_TRUE(want) << A::name;
      ASSERT_EQ(r.value.at, want->at) << A::name << " key " << r.key << " window " << r.start;
      ASSERT_EQ(r.value.value, want->value) << A::name << " key " << r.key << " window " << r.start;
      ASSERT_EQ(std::signbit(r.value.value), std::signbit(want->value)) << A::name << " window " << r.start;
    }
    ++which;
  });
}

TEST(CpuStreamWindow, PositionalAggregatesMatchTheirDefinitions) {
  for (const std::size_t batch : {std::size_t{1}, std::size_t{7}, std::size_t{500}, std::size_t{3000}})
    for (const window::CpuStreamConfig config :
         {window::CpuStreamConfig{1}, window::CpuStreamConfig{2, 128, 0}}) {
      check_positional_by_definition<std::int32_t>(config, batch);
      check_positional_by_definition<std::int64_t>(config, batch);
      check_positional_by_definition<float>(config, batch);
      check_positional_by_definition<double>(config, batch);
    }
}

// The traits decide at compile time: the positional aggregates have no inverse and no device
// atomic, lift sees the tuple's context, and the algorithms that need a trait cannot be
// instantiated without it.
static_assert(!window::InvertibleAggregate<window::ArgMaxAggregate<int>>);
static_assert(!window::AtomicAggregate<window::FirstAggregate<double>>);
static_assert(window::ContextLift<window::LastAggregate<float>> &&
              !window::ValueLift<window::ArgMinAggregate<int>>);
static_assert(window::StreamAggregate<window::ArgMaxAggregate<std::int64_t>>);
static_assert(window::ValueLift<window::SumAggregate<int>> &&
              !window::ContextLift<window::SumAggregate<int>>);

// Sums of time windows straight from the definition: each accepted tuple is added to every
// window that contains it (O(tuples x W/S), where the shared reference is O(windows x tuples)).
std::vector<window::WindowResult<std::int64_t>> sum_by_definition(
    const std::vector<window::testing::RefTuple<std::int64_t>>& tuples, const window::StreamWindowOptions& o,
    std::uint64_t& late) {
  std::map<std::tuple<std::uint32_t, window::StreamKey, std::int64_t>, std::int64_t> sums;
  std::int64_t wm = no_watermark;
  late = 0;
  for (const auto& t : tuples) {
    if (wm != no_watermark && t.ts + o.lateness < wm) {
      ++late;
    } else {
      for (std::uint32_t spec = 0; spec < o.specs.size(); ++spec) {
        const std::int64_t w = o.specs[spec].length, s = o.specs[spec].slide;
        for (std::int64_t k = t.ts / s; k >= 0 && k * s + w > t.ts; --k) {
          auto& sum = sums[{spec, t.key, k * s}];
          sum = static_cast<std::int64_t>(static_cast<std::uint64_t>(sum) +
                                          static_cast<std::uint64_t>(t.value));
        }
      }
    }
    if (t.wm != no_watermark) wm = std::max(wm, t.wm);
  }
  std::vector<window::WindowResult<std::int64_t>> out;
  for (const auto& [id, sum] : sums) {
    const auto [spec, key, start] = id;
    out.push_back({spec, key, start, start + o.specs[spec].length, sum});
  }
  return out;
}

// Rings that must grow (a large in-order batch over many panes, large disorder), overflow
// (panes 10^12 apart while others are pending) and shrink again (small batches after a large
// one), on one shard and on two.
TEST(CpuStreamWindow, RingsGrowOverflowAndShrink) {
  using A = window::SumAggregate<std::int64_t>;
  StreamShape big;
  big.tuples = 60000;
  big.keys = 2;
  big.delay = 5000;
  big.wm_lag = 4000;
  big.seed = 9;
  auto tuples = make_stream<std::int64_t>(big);
  StreamShape tail = big;  // then a sparse tail: jumps of 10^12 with earlier panes pending
  tail.tuples = 3000;
  tail.start = tuples.back().ts + 10;
  tail.delay = 50;
  tail.wm_lag = 60;
  tail.jump = 0.02;
  tail.seed = 10;
  for (const auto& t : make_stream<std::int64_t>(tail)) tuples.push_back(t);
  for (const auto& options : {time_options({{6, 3}}, 0, 2), time_options({{1, 1}, {40, 8}}, 7)}) {
    std::uint64_t late = 0;
    const auto want = sum_by_definition(tuples, options, late);
    for (const window::CpuStreamConfig config :
         {window::CpuStreamConfig{1}, window::CpuStreamConfig{2, 1000, 0}})
      for (const std::size_t batch : {std::size_t{0}, std::size_t{30000}, std::size_t{7}}) {
        SCOPED_TRACE(describe(options) + " batch " + std::to_string(batch) + " threads " +
                     std::to_string(config.threads));
        window::StreamWindowOperator<window::CpuStreamBackend, A> op(options, config);
        for (std::size_t b = 0; b < tuples.size(); b += batch == 0 ? tuples.size() : batch)
          op.push(BatchColumns<std::int64_t>(
                      tuples, b, std::min(tuples.size(), b + (batch == 0 ? tuples.size() : batch)))
                      .batch());
        op.finish();
        std::vector<window::WindowResult<std::int64_t>> got;
        op.poll(got);
        window::testing::sort_results(got);
        EXPECT_TRUE(same_results(got, want, 0));
        EXPECT_EQ(op.counters().late_dropped, late);
      }
  }
}

// The pane stage alone: in-order batches of one key, whose closing panes it may take straight
// from the tuples, under every call order the hook contract allows (two pushes before a release,
// a watermark between push and release, the end of the stream right after a push). Every pane
// must come out once, in ascending order, with the sum of its on-time tuples.
TEST(CpuStreamWindow, InOrderPanesSurviveEveryCallOrder) {
  using A = window::SumAggregate<std::int64_t>;
  const window::StreamGeometry geometry = window::make_geometry(time_options({{8, 2}}, 1, 4));  // panes of 2
  const auto batch = [](std::int64_t from, std::int64_t to, std::map<std::int64_t, std::int64_t>& want) {
    std::vector<RefTuple<std::int64_t>> tuples;
    for (std::int64_t ts = from; ts < to; ++ts) {
      tuples.push_back({0, ts, ts * 7 - 100, ts});  // one key, watermark at the event time
      want[ts / 2] += ts * 7 - 100;
    }
    return BatchColumns<std::int64_t>(tuples, 0, tuples.size());
  };
  for (int order = 0; order < 4; ++order) {
    SCOPED_TRACE("call order " + std::to_string(order));
    window::CpuPaneStage<A> stage(geometry, window::CpuStreamConfig{1});
    window::CpuPaneStage<A>::ClosedPanes closed;
    std::map<std::int64_t, std::int64_t> want, got;
    std::int64_t last = -1;
    const auto take = [&] {
      for (const auto& run : closed.keys)
        for (std::uint32_t i = run.begin; i < run.end; ++i) {
          EXPECT_GT(closed.panes[i], last) << "pane out of order or twice";
          last = closed.panes[i];
          EXPECT_GT(closed.partials[i].tuples, 0);
          got[closed.panes[i]] = static_cast<std::int64_t>(closed.partials[i].acc);
        }
    };
    stage.push(batch(0, 10, want).batch());  // decides the layout at its release
    stage.release(closed);
    take();
    stage.push(batch(10, 101, want).batch());
    if (order == 0) {
      stage.push(batch(101, 150, want).batch());  // before the first one's release
    } else if (order == 1) {
      stage.advance_watermark(140);  // the release's frontier moves past the push's
    } else if (order == 2) {
      stage.release_all(closed);  // the end of the stream right after the push
      take();
      EXPECT_EQ(got, want);
      continue;
    }
    stage.release(closed);
    take();
    stage.push(batch(150, 400, want).batch());
    stage.release(closed);
    take();
    stage.release_all(closed);
    take();
    EXPECT_EQ(got, want);
    EXPECT_EQ(stage.counters().late_dropped, 0u);
  }
}

}  // namespace
}  // namespace sextant::testing

namespace sextant::testing {
namespace {

// Work proportional to tuples + emitted windows: two tuples 10^8 apart under W = 10^6, S = 1
// emit exactly 2 * 10^6 windows. The B-PAT used to rescan the gap before a lone pane for every
// window (O(W^2 / 64): over a minute); now it takes a fraction of a second.
TEST(CpuStreamWindow, LonePanesUnderLongWindowsCostTheirWindows) {
  for (const auto stage : {window::WindowStageKind::bpat, window::WindowStageKind::scan}) {
    SCOPED_TRACE(std::string(window::to_string(stage)));
    using A = window::SumAggregate<std::int64_t>;
    constexpr std::int64_t W = 1'000'000, x0 = 100'000'000, x1 = 200'000'000;
    window::StreamWindowOptions options;
    options.specs = {{window::WindowType::time, W, 1}};
    options.window_stage = stage;
    const auto started = std::chrono::steady_clock::now();
    window::StreamWindowOperator<window::CpuStreamBackend, A> op(options, {});
    const std::vector<std::int64_t> ts = {x0, x1}, values = {5, 7};
    op.push({{}, ts, values, {}});
    op.finish();
    std::vector<window::WindowResult<std::int64_t>> out;
    op.poll(out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    window::testing::sort_results(out);
    ASSERT_EQ(out.size(), static_cast<std::size_t>(2 * W));
    // Brute force: window k holds x iff k <= x < k + W.
    for (const std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{W / 2}, std::size_t{W - 1},
                                std::size_t{W}, std::size_t{W + 12345}, std::size_t{2 * W - 1}}) {
      const std::int64_t x = i < static_cast<std::size_t>(W) ? x0 : x1;
      const std::int64_t k = x - W + 1 + static_cast<std::int64_t>(i % W);
      EXPECT_EQ(out[i].start, k) << i;
      EXPECT_EQ(out[i].end, k + W) << i;
      EXPECT_EQ(out[i].value, x == x0 ? 5 : 7) << i;
    }
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
    EXPECT_LT(seconds, 5.0) << "2e6 windows of two panes must not cost O(W^2)";
#else
    EXPECT_LT(seconds, 60.0);
#endif
  }
}

// Both window stages, driven directly with random sparse panes (gaps of 0 .. several blocks,
// the frontier moving with and without panes), against brute force: every window k whose panes
// [k s, k s + w) hold a tuple fires once, as soon as the frontier reaches k s + w, with the sum
// of its panes; and each call returns the end of the next window that holds a known tuple.
TEST(CpuStreamWindow, WindowStagesMatchBruteForceOnSparsePanes) {
  using A = window::SumAggregate<std::int64_t>;
  using P = window::Partial<A>;
  std::mt19937_64 rng(11);
  for (const std::int64_t w : {1, 2, 3, 5, 8, 13, 64})
    for (const std::int64_t s : {1, 2, 3, 7, 20}) {
      window::StreamWindowOptions options;
      options.specs = {{window::WindowType::time, w, s}};
      const window::StreamGeometry geometry = window::make_geometry(options);
      const window::detail::BpatShape shape(geometry.specs[0], 0);
      const std::int64_t gaps[] = {0, 0, 1, 2, w - 1, w, w + 1, 2 * w, 3 * w + 2, 50 * w + s};
      for (int round = 0; round < 20; ++round) {
        SCOPED_TRACE("w " + std::to_string(shape.w) + ", s " + std::to_string(shape.s) + ", round " +
                     std::to_string(round));
        // Distinct ascending non-empty panes, released in calls of 0 .. 4 panes.
        std::map<std::int64_t, std::int64_t> panes;
        std::int64_t j = static_cast<std::int64_t>(rng() % 5);
        for (int i = 0; i < 30; ++i) {
          panes[j] = static_cast<std::int64_t>(rng() % 19) - 9;  // zero sums still hold a tuple
          j += 1 + gaps[rng() % std::size(gaps)];
        }
        window::detail::Bpat<A> tree;
        window::detail::PaneScan<A> scan;
        tree.allocate(shape);
        scan.allocate(shape);
        std::vector<std::uint64_t> dirty;
        std::map<std::int64_t, std::int64_t> fired_tree, fired_scan;
        std::vector<std::int64_t> ids;
        std::vector<P> parts;
        auto it = panes.begin();
        std::int64_t frontier = 0;
        while (true) {
          ids.clear();
          parts.clear();
          const bool last = it == panes.end();
          frontier = last ? INT64_MAX / 4 : frontier;
          for (int take = static_cast<int>(rng() % 5); take > 0 && it != panes.end(); --take, ++it) {
            ids.push_back(it->first);
            parts.push_back({it->second, 1});
            frontier = std::max(frontier, it->first + 1);
          }
          if (!last) frontier += static_cast<std::int64_t>(rng() % (2 * shape.w + 2));
          if (it != panes.end()) frontier = std::min(frontier, it->first);  // panes below it are closed
          const auto into = [&](std::map<std::int64_t, std::int64_t>& fired) {
            return [&](std::int64_t k, const typename A::Acc& acc) {
              EXPECT_TRUE(fired.emplace(k, acc).second) << "window " << k << " fired twice";
              EXPECT_LE(k * shape.s + shape.w, frontier) << "window " << k << " fired early";
            };
          };
          const std::int64_t at_tree =
              tree.advance(shape, ids.data(), parts.data(), ids.size(), frontier, dirty, into(fired_tree));
          const std::int64_t at_scan =
              scan.advance(shape, ids.data(), parts.data(), ids.size(), frontier, dirty, into(fired_scan));
          // Brute force over the panes released so far.
          std::int64_t expect_at = window::detail::Bpat<A>::idle;
          std::map<std::int64_t, std::int64_t> expect;
          for (auto p = panes.begin(); p != it; ++p)
            for (std::int64_t k = shape.first_window(p->first); k * shape.s <= p->first; ++k) {
              if (k * shape.s + shape.w <= frontier)
                expect[k] += p->second;
              else
                expect_at = std::min(expect_at, k * shape.s + shape.w);
            }
          EXPECT_EQ(fired_tree, expect);
          EXPECT_EQ(fired_scan, expect);
          EXPECT_EQ(at_tree, expect_at);
          EXPECT_EQ(at_scan, expect_at);
          if (last || ::testing::Test::HasFailure()) break;
        }
        if (::testing::Test::HasFailure()) return;
      }
    }
}

// Many keys on several shards (a push split over threads in small slices), below the dense
// layout's key count: the shards' runs merge key by key on threads (64 keys or more each), and the
// window stage takes the keys on threads once they bring many closed panes between them, with
// disorder, late tuples and every aggregate.
TEST(CpuStreamWindow, ManyKeysOnSeveralShardsMergeOnThreads) {
  StreamShape shape;
  shape.tuples = 120000;
  shape.keys = 700;
  shape.delay = 400;
  shape.wm_lag = 300;
  shape.seed = 11;
  const auto tuples = make_stream<std::int64_t>(shape);
  const auto options = time_options({{3000, 1000}, {2000, 500}}, 50);  // panes of 500
  for (const window::CpuStreamConfig config :
       {window::CpuStreamConfig{1}, window::CpuStreamConfig{4, 100, 0}}) {
    SCOPED_TRACE(describe(options) + "; threads " + std::to_string(config.threads));
    for_each_aggregate<std::int64_t>([&](auto a) {
      check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {40000, false}, config);
    });
  }
}

// Pushes that fire far more windows than policy::stream_parallel_copy_rows on many keys: the
// window stage's threads copy their own columns into the operator's, each at its offset, in
// the per-key layout and in the dense one.
TEST(CpuStreamWindow, LargeOutputsAreCopiedByTheirThreads) {
  StreamShape shape;
  shape.tuples = 90000;
  shape.delay = 40;
  shape.wm_lag = 30;
  shape.seed = 13;
  // The dense scan gives each thread at least 4096 keys: two threads from 8192.
  for (const std::uint32_t keys : {1500u, 2 * window::policy::stream_dense_min_keys + 500}) {
    const bool dense = keys >= window::policy::stream_dense_min_keys;
    // Dense rows need panes that most keys fill: 2000 time units, a tuple per unit.
    const auto options =
        dense ? time_options({{8000, 2000}, {4000, 2000}}, 50) : time_options({{8, 1}, {6, 2}}, 5);
    shape.keys = keys;
    const auto tuples = make_stream<std::int64_t>(shape);
    const window::CpuStreamConfig config{3, 128, 0};
    SCOPED_TRACE(std::to_string(keys) + " keys");
    window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int64_t>> op(options,
                                                                                                  config);
    op.push(BatchColumns<std::int64_t>(tuples, 0, 45000).batch());
    window::WindowColumns<std::int64_t> fired;
    op.poll(fired);
    ASSERT_GT(fired.size(), window::policy::stream_parallel_copy_rows) << "the case this test is about";
    EXPECT_EQ(op.window_stage() == "cpu dense", dense);
    for_each_aggregate<std::int64_t>([&](auto a) {
      check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {45000, false}, config);
    });
  }
}

// The dense scan's threads write straight into the operator's columns while every key of their
// ranges fires (each range's rows then fill the region sized for them), and into their own
// buffers otherwise. Every key has a tuple in each time unit, except the odd keys in units
// [14, 24): windows inside that gap fire only the even keys, after advances that fired every
// key (the regions close up over the gaps), then every key fires again.
TEST(CpuStreamWindow, DenseThreadsWriteStraightIntoTheResultsWhileEveryKeyFires) {
  constexpr std::uint32_t keys = 2 * window::policy::stream_dense_min_keys + 500;  // two ranges
  std::mt19937_64 rng(21);
  std::vector<RefTuple<std::int64_t>> tuples;
  for (std::int64_t unit = 0; unit < 40; ++unit)
    for (std::uint32_t k = 0; k < keys; ++k) {
      RefTuple<std::int64_t> t;
      t.key = static_cast<window::StreamKey>(std::uint64_t{k} * 2654435761u % keys);  // shuffled
      if (unit >= 14 && unit < 24 && t.key % 2 == 1) continue;
      t.ts = unit;
      t.value = random_value<std::int64_t>(rng);
      t.wm = unit - 1;
      tuples.push_back(t);
    }
  auto options = time_options({{4, 2}});
  options.window_stage = window::WindowStageKind::dense;
  const window::CpuStreamConfig config{3, 128, 0};
  for_each_aggregate<std::int64_t>([&](auto a) {
    check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {2 * keys, false}, config);
  });
}

// The dense scan sizes its results for every key of a range only while that is no more rows than
// its blocks hold cells. After pushes that fired every key, one key alone walks 5 000 windows:
// sized for every key, the results would have taken 4.3 * 10^7 rows for the 5 000 that fire.
TEST(CpuStreamWindow, DenseResultsAreNotSizedForKeysThatDoNotFire) {
  constexpr std::uint32_t keys = 2 * window::policy::stream_dense_min_keys + 500;
  std::mt19937_64 rng(24);
  std::vector<RefTuple<std::int64_t>> tuples;
  const auto add = [&](window::StreamKey key, std::int64_t unit) {
    tuples.push_back({key, unit, random_value<std::int64_t>(rng), unit - 1});
  };
  for (std::int64_t unit = 0; unit < 14; ++unit)
    for (std::uint32_t k = 0; k < keys; ++k) add(k, unit);
  const std::size_t every_key = tuples.size();
  for (std::int64_t unit = 14; unit < 10014; ++unit) add(7, unit);
  auto options = time_options({{4, 2}});
  options.window_stage = window::WindowStageKind::dense;
  for (const int threads : {1, 3}) {
    const window::CpuStreamConfig config{threads, 128, 0};
    SCOPED_TRACE("threads " + std::to_string(threads));
    window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int64_t>> op(options,
                                                                                                  config);
    window::WindowColumns<std::int64_t> fired;
    op.push(BatchColumns<std::int64_t>(tuples, 0, every_key).batch());
    op.poll(fired);
    ASSERT_GE(fired.size(), 5 * std::size_t{keys}) << "every key fires first";
    fired = {};
    op.push(BatchColumns<std::int64_t>(tuples, every_key, tuples.size()).batch());
    op.poll(fired);  // trades buffers: `fired` now holds the columns that the push filled
    EXPECT_GE(fired.size(), 4990u);
    EXPECT_LT(fired.keys.capacity(), 1'000'000u);
    check_stream_window<window::CpuStreamBackend, window::SumAggregate<std::int64_t>>(
        tuples, options, {every_key, false}, config);
  }
}

// The dense layout's combines cut the keys into ranges that carry about equal numbers of
// tuples: with 70% of the tuples on key 0 its range (one line of 64 ids) takes a whole part and
// the next parts none, while the rest split the other keys.
TEST(CpuStreamWindow, DenseCombinesCutTheKeysByLoad) {
  StreamShape shape;
  shape.tuples = 120000;
  shape.keys = window::policy::stream_dense_min_keys + 3000;
  shape.delay = 200;
  shape.wm_lag = 150;
  shape.seed = 22;
  auto tuples = make_stream<std::int64_t>(shape);
  std::mt19937_64 rng(23);
  for (auto& t : tuples)
    if (std::uniform_int_distribution<int>(0, 9)(rng) < 7) t.key = 0;
  auto options = time_options({{4000, 1000}}, 50);
  options.window_stage = window::WindowStageKind::dense;
  for (const int threads : {3, 8})
    for_each_aggregate<std::int64_t>([&](auto a) {
      check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {40000, false},
                                                                 window::CpuStreamConfig{threads, 128, 0});
    });
}

// The threads' combines take the tuples of the panes the ring holds; those of a pane past what
// the ring may span (a jump of 10^6 panes with this many keys) wait aside, per slice, and join
// after every part is done. Several of them share a key and a far pane across slices.
TEST(CpuStreamWindow, DenseCombinesSetAsideThePanesBeyondTheRing) {
  StreamShape shape;
  shape.tuples = 60000;
  shape.keys = window::policy::stream_dense_min_keys + 4000;
  shape.delay = 200;
  shape.wm_lag = 150;
  shape.seed = 31;
  auto tuples = make_stream<std::int64_t>(shape);
  for (std::size_t i = 30000; i < tuples.size(); i += 41) {  // the second push only
    tuples[i].ts = 1'000'000'000 + static_cast<std::int64_t>(i % 3) * 1000;
    tuples[i].key = static_cast<window::StreamKey>(i % 5);
  }
  auto options = time_options({{4000, 1000}}, 50);
  options.window_stage = window::WindowStageKind::dense;
  for (const int threads : {3, 8}) {
    const window::CpuStreamConfig config{threads, 128, 0};
    for_each_aggregate<std::int64_t>([&](auto a) {
      check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {30000, false}, config);
    });
  }
}

// The dense layout (from the first push's release on) with a push larger than one gather chunk
// (2^16 tuples): every part of the keys gathers its tuples chunk by chunk, in arrival order,
// across the chunks' edges.
TEST(CpuStreamWindow, DenseLayoutGathersLargePushesInChunks) {
  StreamShape shape;
  shape.tuples = 150000;
  shape.keys = window::policy::stream_dense_min_keys + 2000;
  shape.delay = 300;
  shape.wm_lag = 250;
  shape.seed = 12;
  const auto tuples = make_stream<std::int64_t>(shape);
  const auto options = time_options({{3000, 1000}}, 20);
  const window::CpuStreamConfig config{4, 128, 0};
  for_each_aggregate<std::int64_t>([&](auto a) {
    check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {75000, false}, config);
  });
  window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int64_t>> op(options,
                                                                                                config);
  op.push(BatchColumns<std::int64_t>(tuples, 0, 75000).batch());
  EXPECT_EQ(op.window_stage(), "cpu dense") << "the layout this test is about";
}

// The dense layout with keys that keep arriving: 5000 keys choose it, then 36 000 more make every
// per-key row grow (to 65 536 cells) while rows hold pending panes and the window stage's blocks
// hold open windows. The rows are then tens of MiB, which the stage's threads lay out.
TEST(CpuStreamWindow, DenseLayoutGrowsWithKeysThatArriveLater) {
  StreamShape first;
  first.tuples = 30000;
  first.keys = 5000;
  first.delay = 300;
  first.wm_lag = 250;
  first.seed = 14;
  auto tuples = make_stream<std::int64_t>(first);
  StreamShape more = first;
  more.keys = 36000;
  more.start = tuples.back().ts + 1;
  more.seed = 15;
  for (const auto& t : make_stream<std::int64_t>(more)) tuples.push_back(t);
  const auto options = time_options({{32000, 2000}}, 100);  // 16 panes of 2000 per window
  const window::CpuStreamConfig config{3, 128, 0};
  window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int64_t>> op(options,
                                                                                                config);
  op.push(BatchColumns<std::int64_t>(tuples, 0, 10000).batch());
  EXPECT_EQ(op.window_stage(), "cpu dense") << "the layout this test is about";
  for_each_aggregate<std::int64_t>([&](auto a) {
    check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {10000, false}, config);
  });
}

// The dense layout's threads take ranges of keys, after the slices of the batch have handed them
// their tuples: a cell still takes its tuples in arrival order. A floating sum shows it: 1 + 1e16
// - 1e16 is 0 in that order and 1 in the reverse one.
TEST(CpuStreamWindow, DenseCellsTakeTheirTuplesInArrivalOrderOnEveryThread) {
  constexpr std::size_t n = 6000;  // three slices of 2000 tuples, on three threads
  std::vector<window::StreamKey> keys(n);
  std::vector<std::int64_t> ts(n);
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<window::StreamKey>(i + 1);
    ts[i] = static_cast<std::int64_t>(i / 6);  // every tuple in pane [0, 1000)
    values[i] = 0.25 * static_cast<double>(i % 7);
  }
  const std::size_t at[] = {10, 2010, 4010};  // key 0 once in each slice
  const double v[] = {1.0, 1e16, -1e16};
  double want = 0;
  for (int j = 0; j < 3; ++j) {
    keys[at[j]] = 0;
    values[at[j]] = v[j];
    want += v[j];
  }
  ASSERT_NE(want, ((0 + v[2]) + v[1]) + v[0]) << "the order must show in the sum";
  auto options = time_options({{1000, 1000}});
  options.window_stage = window::WindowStageKind::dense;
  const window::CpuStreamConfig config{3, 128, 0};
  window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<double>> op(options, config);
  op.push({keys, ts, values, {}});
  op.finish();
  std::vector<window::WindowResult<double>> got;
  op.poll(got);
  EXPECT_EQ(op.window_stage(), "cpu dense");
  ASSERT_EQ(got.size(), n - 2);  // one window per key
  for (const auto& r : got) {
    EXPECT_EQ(r.start, 0);
    EXPECT_EQ(r.end, 1000);
    const double expected = r.key == 0 ? want : values[static_cast<std::size_t>(r.key) - 1];
    EXPECT_EQ(r.value, expected) << "key " << r.key;
  }
}

// With `automatic`, a first batch that alone meets the dense rule starts the dense layout at that
// push, before any pane closes (no per-key panes to move into rows at the first release); one
// that does not (too few keys) leaves the choice to the first release. Exact either way.
TEST(CpuStreamWindow, AutomaticLayoutStartsDenseWithAFirstBatchThatFillsTheRows) {
  for (const std::uint32_t keys : {window::policy::stream_dense_min_keys + 1904, 100u})
    for (const window::CpuStreamConfig config :
         {window::CpuStreamConfig{1}, window::CpuStreamConfig{3, 128, 0}}) {
      StreamShape shape;
      shape.tuples = 40000;
      shape.keys = keys;
      shape.delay = 300;
      shape.wm_lag = 250;  // some tuples late, after the first batch
      shape.seed = 22;
      auto tuples = make_stream<std::int64_t>(shape);
      for (std::size_t i = 0; i < 20000; ++i) tuples[i].wm = window::no_watermark;  // it closes nothing
      const auto options = time_options({{3000, 1000}, {6000, 1000}}, 20);
      SCOPED_TRACE("keys " + std::to_string(keys) + "; threads " + std::to_string(config.threads));
      window::CpuPaneStage<window::SumAggregate<std::int64_t>> stage(window::make_geometry(options), config);
      stage.push(BatchColumns<std::int64_t>(tuples, 0, 20000).batch());
      EXPECT_EQ(stage.dense(), keys > window::policy::stream_dense_min_keys);
      for_each_aggregate<std::int64_t>([&](auto a) {
        check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {20000, false}, config);
      });
    }
}

// With `automatic`, the first release that closes a pane picks the layout: dense (rows over every
// key) for many keys that fill most panes, per key otherwise; the shards' panes move into the rows
// then. Both are exact, with disorder, late tuples, jumps in time and every aggregate.
TEST(CpuStreamWindow, AutomaticLayoutFollowsTheKeysAndIsExact) {
  struct Case {
    std::int64_t length, slide;  // pane = gcd: 1000 (about 1000 tuples per pane) or 2
    double jump;
    int dense;  // 1: dense, 0: per key, -1: either (a jump before the first release dilutes the fill)
  };
  for (const Case c : {Case{3000, 1000, 0, 1}, Case{3000, 1000, 0.001, -1}, Case{6, 2, 0, 0}})
    for (const window::CpuStreamConfig config :
         {window::CpuStreamConfig{1}, window::CpuStreamConfig{2, 128, 0}}) {
      StreamShape shape;
      shape.tuples = 40000;
      // About 1/5 of the cells of a pane taken; the first batch (the first release) sees more than
      // stream_dense_min_keys keys.
      shape.keys = window::policy::stream_dense_min_keys + 1904;
      shape.delay = 300;
      shape.wm_lag = 250;  // some tuples late
      shape.jump = c.jump;
      shape.seed = 5;
      const auto options = time_options({{c.length, c.slide}, {c.length * 2, c.slide}}, 20);
      SCOPED_TRACE(describe(options) + "; " + describe(shape, {8192, false}) + "; threads " +
                   std::to_string(config.threads));
      const auto tuples = make_stream<std::int64_t>(shape);
      for_each_aggregate<std::int64_t>([&](auto a) {
        check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {8192, false}, config);
      });
      window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int64_t>> op(options,
                                                                                                    config);
      std::vector<window::StreamKey> keys;
      std::vector<std::int64_t> ts, values, wms;
      for (const auto& t : tuples) {
        keys.push_back(t.key);
        ts.push_back(t.ts);
        values.push_back(t.value);
        wms.push_back(t.wm);
      }
      for (std::size_t b = 0; b < tuples.size(); b += 8192) {
        const std::size_t m = std::min<std::size_t>(8192, tuples.size() - b);
        op.push({{keys.data() + b, m}, {ts.data() + b, m}, {values.data() + b, m}, {wms.data() + b, m}});
      }
      op.finish();
      if (c.dense >= 0) {
        EXPECT_EQ(op.window_stage() == "cpu dense", c.dense == 1) << op.window_stage();
      }
    }
}

// With many keys the dense rule asks for as many non-empty cells per pane as at
// policy::stream_dense_cached_keys keys (2 048), not for 1/8 of the keys seen
// (policy::stream_dense_min_cells). The first 40 000 tuples over 200 000 keys hold about 36 000
// keys: panes of about 3 000 tuples fill 8% of their cells (dense), panes of about 1 000 fill 3%
// and fewer than 2 048 (per key). Judged on a first batch of 40 000 tuples and, with batches of
// 3 000 (too few keys each), at the first release, after 39 000 tuples without a watermark.
TEST(CpuStreamWindow, AutomaticLayoutAtManyKeysCountsCellsPerPane) {
  struct Case {
    std::int64_t pane;
    std::size_t batch;
    bool dense;
  };
  for (const Case c :
       {Case{3000, 40000, true}, Case{3000, 3000, true}, Case{1000, 40000, false}, Case{1000, 3000, false}})
    for (const window::CpuStreamConfig config :
         {window::CpuStreamConfig{1}, window::CpuStreamConfig{3, 128, 0}}) {
      StreamShape shape;
      shape.tuples = 60000;
      shape.keys = 200000;
      shape.delay = 300;
      shape.wm_lag = 250;  // some tuples late
      shape.seed = 33;
      auto tuples = make_stream<std::int64_t>(shape);
      for (std::size_t i = 0; i < 39000; ++i) tuples[i].wm = window::no_watermark;
      const auto options = time_options({{2 * c.pane, c.pane}, {3 * c.pane, c.pane}}, 20);
      SCOPED_TRACE("pane " + std::to_string(c.pane) + "; batch " + std::to_string(c.batch) + "; threads " +
                   std::to_string(config.threads));
      for_each_aggregate<std::int64_t>([&](auto a) {
        check_stream_window<window::CpuStreamBackend, decltype(a)>(tuples, options, {c.batch, false}, config);
      });
      window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int64_t>> op(options,
                                                                                                    config);
      for (std::size_t b = 0; b < tuples.size(); b += c.batch) {
        const BatchColumns<std::int64_t> columns(tuples, b, std::min(tuples.size(), b + c.batch));
        op.push(columns.batch());
      }
      op.finish();
      EXPECT_EQ(op.window_stage() == "cpu dense", c.dense) << op.window_stage();
    }
}

// Count windows number each key's tuples: no two keys share pane boundaries, so no dense layout.
TEST(CpuStreamWindow, DenseLayoutIsRefusedForCountWindows) {
  window::StreamWindowOptions options = count_options({{4, 2}});
  options.window_stage = window::WindowStageKind::dense;
  try {
    window::make_geometry(options);
    ADD_FAILURE() << "dense accepted for count windows";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("dense"), std::string::npos) << e.what();
  }
  options.window_stage = window::WindowStageKind::scan;
  EXPECT_NO_THROW(window::make_geometry(options));
}

// A tree that cannot fit is refused up front (exit 5) with its size and what would fit.
TEST(CpuStreamWindow, TreesLargerThanMemoryAreRefusedUpFront) {
  window::StreamWindowOptions options;
  options.specs = {{window::WindowType::time, 100'000'000, 1}};
  options.windows_per_tree = 40'000'000;  // 2^28 leaves; n_w = 1 would need 2^27
  const window::StreamGeometry g = window::make_geometry(options);
  const std::vector<window::detail::BpatShape> shapes = {window::detail::BpatShape(g.specs[0], 0)};
  try {
    window::detail::check_window_stage_memory(shapes, 32, std::uint64_t{1} << 30);
    ADD_FAILURE() << "a 16 GiB tree passed a 1 GiB check";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource);
    const std::string what = e.what();
    EXPECT_NE(what.find("GiB per key"), std::string::npos) << what;
    EXPECT_NE(what.find("1.0 GiB of memory"), std::string::npos) << what;
    EXPECT_NE(what.find("--windows-per-tree 1 needs 134217728 leaves"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(window::detail::check_window_stage_memory(shapes, 32, std::uint64_t{1} << 40));
  // The operator checks against this machine's memory: 2^40 panes per window never fit.
  options.specs = {{window::WindowType::time, std::int64_t{1} << 40, 1}};
  options.windows_per_tree = 1;
  try {
    window::StreamWindowOperator<window::CpuStreamBackend, window::SumAggregate<std::int32_t>> op(options,
                                                                                                  {});
    ADD_FAILURE() << "a 2^40-leaf tree was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource) << e.what();
  }
}

// A tree spanning more than 2^40 panes is an argument combination that never works: the
// message names the length, slide and windows per tree and the valid n_w.
TEST(CpuStreamWindow, TreeSpanNamesTheCombination) {
  window::StreamWindowOptions options;
  options.specs = {{window::WindowType::time, std::int64_t{1} << 40, 1}};
  try {
    window::make_geometry(options);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
    const std::string what = e.what();
    EXPECT_NE(what.find("length 1099511627776, slide 1 and windows per tree 64"), std::string::npos) << what;
    EXPECT_NE(what.find("valid: windows per tree 1 .. 1"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace sextant::testing
