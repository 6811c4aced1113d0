// The pieces of the stream-window conformance body that do not depend on a backend or a test
// fixture: generated out-of-order keyed streams (StreamShape, make_stream), how they are cut into
// batches (Batching), the comparison with the reference (stream_window_reference.hpp) and the
// firing-time check (FiringCheck). check_stream_window<Backend, A> runs one stream through one
// operator with all of them; the suite of tests/window/stream_window_conformance.hpp runs it for
// every built-in aggregate on every backend, and stream_aggregate_conformance.hpp for a
// user-defined aggregate on the CPU backend.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_operator.hpp"
#include "templates/window/stream_results.hpp"
#include "templates/window/stream_spec.hpp"
#include "testing/stream_window_reference.hpp"

namespace sextant::window {
// For failure messages: value@timestamp (found by argument-dependent lookup).
template <class V>
std::ostream& operator<<(std::ostream& os, const Selected<V>& s) {
  return os << +s.value << "@" << s.at;
}
}  // namespace sextant::window

namespace sextant::testing {

namespace stream_conformance {

using window::no_watermark;
using window::StreamKey;
using window::StreamWindowOptions;
using window::WindowResult;
using window::WindowSpec;
using window::WindowType;
using window::testing::ReferenceCounts;
using window::testing::RefTuple;

// The shape of a generated stream. Event time g grows by uniform [0, 2*step] per tuple; a
// tuple's timestamp is g - uniform [0, delay] (clamped at 0), its watermark g - wm_lag
// (wm_lag < delay makes late tuples), sometimes lower than before (wm_down) or absent (wm_none).
struct StreamShape {
  std::size_t tuples = 1000;
  std::uint32_t keys = 1;
  bool scatter_keys = false;  // key values spread over all of uint32 instead of 0 .. keys-1
  std::int64_t start = 0;
  std::int64_t step = 1;
  std::int64_t delay = 0;
  std::int64_t wm_lag = -1;  // -1: = delay (no late tuples)
  double wm_down = 0;
  double wm_none = 0;
  double jump = 0;  // probability that event time jumps by jump_size (sparse time)
  std::int64_t jump_size = 1'000'000'000'000;
  std::uint64_t seed = 1;
};

// How a stream is cut into batches: `size` tuples each (0: the whole stream in one batch), or
// uniform [0, size] (empty batches included) when `random`.
struct Batching {
  std::size_t size = 0;
  bool random = false;
};

template <class V>
V random_value(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> small(-20, 20);
  std::uniform_int_distribution<int> pick(0, 99);
  if constexpr (std::is_integral_v<V>) {
    // Ties (a small range) and, now and then, extremes: int32 sums must not overflow. int64
    // extremes are 2^-16 of the range, so that no window's sum leaves int64 (an overflow is an
    // error; IntegerExtremes tests it and the full range).
    constexpr V big =
        std::is_same_v<V, std::int64_t> ? std::numeric_limits<V>::max() >> 16 : std::numeric_limits<V>::max();
    const int p = pick(rng);
    if (p == 0) return big;
    if (p == 1) return static_cast<V>(-big - 1);
    if (p == 2) return static_cast<V>(big / 3);
    return static_cast<V>(small(rng));
  } else {
    // Quarters: exact in float and double, so sums barely depend on the combine order.
    return static_cast<V>(std::uniform_int_distribution<int>(-400, 400)(rng)) / V{4};
  }
}

inline StreamKey key_value(std::uint32_t k, bool scatter) {
  return scatter ? static_cast<StreamKey>(k * 2654435761u + 0x9e3779b9u) : k;
}

template <class V>
std::vector<RefTuple<V>> make_stream(const StreamShape& shape) {
  std::mt19937_64 rng(shape.seed);
  std::vector<RefTuple<V>> out;
  out.reserve(shape.tuples);
  const std::int64_t lag = shape.wm_lag < 0 ? shape.delay : shape.wm_lag;
  std::uniform_real_distribution<double> coin(0, 1);
  std::int64_t g = shape.start;
  for (std::size_t i = 0; i < shape.tuples; ++i) {
    g += std::uniform_int_distribution<std::int64_t>(0, 2 * shape.step)(rng);
    if (shape.jump > 0 && coin(rng) < shape.jump) g += shape.jump_size;
    RefTuple<V> t;
    t.key =
        key_value(std::uniform_int_distribution<std::uint32_t>(0, shape.keys - 1)(rng), shape.scatter_keys);
    t.ts = std::max<std::int64_t>(0, g - std::uniform_int_distribution<std::int64_t>(0, shape.delay)(rng));
    t.value = random_value<V>(rng);
    t.wm = g - lag;
    if (shape.wm_down > 0 && coin(rng) < shape.wm_down)
      t.wm -= std::uniform_int_distribution<std::int64_t>(1, 10 * shape.step + shape.delay + 5)(rng);
    if (shape.wm_none > 0 && coin(rng) < shape.wm_none) t.wm = no_watermark;
    out.push_back(t);
  }
  return out;
}

// Owns the columns of one batch; keys or watermarks are left empty (the documented shorthand)
// when every key is 0 or no tuple carries a watermark.
template <class V>
struct BatchColumns {
  std::vector<StreamKey> keys;
  std::vector<std::int64_t> timestamps;
  std::vector<V> values;
  std::vector<std::int64_t> watermarks;

  BatchColumns(const std::vector<RefTuple<V>>& tuples, std::size_t begin, std::size_t end) {
    bool any_key = false, any_wm = false;
    for (std::size_t i = begin; i < end; ++i) {
      keys.push_back(tuples[i].key);
      timestamps.push_back(tuples[i].ts);
      values.push_back(tuples[i].value);
      watermarks.push_back(tuples[i].wm);
      any_key |= tuples[i].key != 0;
      any_wm |= tuples[i].wm != no_watermark;
    }
    if (!any_key) keys.clear();
    if (!any_wm) watermarks.clear();
  }
  window::StreamBatch<V> batch() const { return {keys, timestamps, values, watermarks}; }
};

template <class Out>
bool same_value(const Out& got, const Out& want, double tolerance) {
  if constexpr (std::is_floating_point_v<Out>) {
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) <=
           tolerance * std::max(1.0, std::abs(static_cast<double>(want)));
  } else {
    return got == want;
  }
}

template <class Out>
std::string describe(const WindowResult<Out>& r) {
  std::ostringstream s;
  s.precision(17);
  s << "spec " << r.spec << " key " << r.key << " [" << r.start << ", " << r.end << ") = " << r.value;
  return s.str();
}

// Both sorted by (spec, key, start).
template <class Out>
::testing::AssertionResult same_results(const std::vector<WindowResult<Out>>& got,
                                        const std::vector<WindowResult<Out>>& want, double tolerance) {
  const std::size_t n = std::min(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& g = got[i];
    const auto& w = want[i];
    if (g.spec != w.spec || g.key != w.key || g.start != w.start || g.end != w.end)
      return ::testing::AssertionFailure()
             << "window #" << i << ": got " << describe(g) << ", want " << describe(w) << " (" << got.size()
             << " vs " << want.size() << " windows)";
    if (!same_value(g.value, w.value, tolerance))
      return ::testing::AssertionFailure()
             << "window #" << i << ": got " << describe(g) << ", want value " << describe(w);
  }
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " windows, want " << want.size()
                                         << "; first extra: " << describe(got.size() > n ? got[n] : want[n]);
  return ::testing::AssertionSuccess();
}

template <class A>
double tolerance_of() {
  return A::name == std::string_view("var") ? 1e-7 : 1e-9;
}

// Number of full count windows of (W, S) over c tuples.
inline std::uint64_t full_count_windows(const WindowSpec& s, std::uint64_t c) {
  const auto w = static_cast<std::uint64_t>(s.length), sl = static_cast<std::uint64_t>(s.slide);
  return c < w ? 0 : (c - w) / sl + 1;
}

// Checks the firing time after each push: the windows polled so far are exactly those of the
// final reference that are complete now.
template <class Out>
class FiringCheck {
 public:
  FiringCheck(const std::vector<WindowResult<Out>>& final_windows, const StreamWindowOptions& options)
      : options_(options) {
    for (const auto& r : final_windows) fire_at_.push_back(r.end + options.lateness);
    std::sort(fire_at_.begin(), fire_at_.end());
  }

  // After a push of tuples [begin, end): `newly` holds what that push fired, `polled_total`
  // counts every window polled so far.
  template <class V>
  ::testing::AssertionResult after_push(const std::vector<RefTuple<V>>& tuples, std::size_t begin,
                                        std::size_t end, std::int64_t operator_wm,
                                        const std::vector<WindowResult<Out>>& newly,
                                        std::size_t polled_total) {
    const bool count = options_.specs.front().type == WindowType::count;
    for (std::size_t i = begin; i < end; ++i) {
      const auto& t = tuples[i];
      if (count) {
        const std::uint64_t before = per_key_[t.key]++;
        for (const auto& s : options_.specs)
          expected_count_ += full_count_windows(s, before + 1) - full_count_windows(s, before);
      }
      if (t.wm != no_watermark) wm_ = std::max(wm_, t.wm);
    }
    if (operator_wm != wm_)
      return ::testing::AssertionFailure() << "watermark() = " << operator_wm << ", want " << wm_;
    for (const auto& r : newly) {
      const bool complete = count ? r.end <= static_cast<std::int64_t>(per_key_[r.key])
                                  : wm_ != no_watermark && r.end + options_.lateness <= wm_;
      if (!complete)
        return ::testing::AssertionFailure() << "fired early: " << describe(r) << " (watermark " << wm_
                                             << ", lateness " << options_.lateness << ")";
    }
    const std::uint64_t want =
        count ? expected_count_
        : wm_ == no_watermark
            ? 0
            : static_cast<std::uint64_t>(std::upper_bound(fire_at_.begin(), fire_at_.end(), wm_) -
                                         fire_at_.begin());
    if (polled_total != want)
      return ::testing::AssertionFailure() << polled_total << " windows fired after tuple " << end
                                           << ", want " << want << " (watermark " << wm_ << ")";
    return ::testing::AssertionSuccess();
  }

 private:
  StreamWindowOptions options_;
  std::vector<std::int64_t> fire_at_;
  std::map<StreamKey, std::uint64_t> per_key_;
  std::uint64_t expected_count_ = 0;
  std::int64_t wm_ = no_watermark;
};

// Calls f(A{}) for every built-in aggregate over V.
template <class V, class F>
void for_each_aggregate(F&& f) {
  f(window::SumAggregate<V>{});
  f(window::CountAggregate<V>{});
  f(window::MinAggregate<V>{});
  f(window::MaxAggregate<V>{});
  f(window::AvgAggregate<V>{});
  f(window::VarAggregate<V>{});
}

// Calls f(A{}) for argmin, argmax, first and last over V.
template <class V, class F>
void for_each_positional_aggregate(F&& f) {
  f(window::ArgMinAggregate<V>{});
  f(window::ArgMaxAggregate<V>{});
  f(window::FirstAggregate<V>{});
  f(window::LastAggregate<V>{});
}

template <class F>
void for_each_value_type(F&& f) {
  f(std::int32_t{});
  f(std::int64_t{});
  f(float{});
  f(double{});
}

inline std::string describe(const StreamWindowOptions& o) {
  std::ostringstream s;
  s << window::to_string(o.specs.front().type) << " specs";
  for (const auto& spec : o.specs) s << " (W=" << spec.length << ", S=" << spec.slide << ")";
  s << " L=" << o.lateness << " n_w=" << o.windows_per_tree;
  return s.str();
}

inline std::string describe(const StreamShape& sh, const Batching& b) {
  std::ostringstream s;
  s << "tuples=" << sh.tuples << " keys=" << sh.keys << (sh.scatter_keys ? " (scattered)" : "")
    << " start=" << sh.start << " step=" << sh.step << " delay=" << sh.delay << " wm_lag=" << sh.wm_lag
    << " wm_down=" << sh.wm_down << " wm_none=" << sh.wm_none << " jump=" << sh.jump << " seed=" << sh.seed
    << " batch=" << b.size << (b.random ? " (random)" : "");
  return s.str();
}

inline StreamWindowOptions time_options(std::vector<std::pair<std::int64_t, std::int64_t>> specs,
                                        std::int64_t lateness = 0, std::int64_t windows_per_tree = 64) {
  StreamWindowOptions o;
  for (auto [w, s] : specs) o.specs.push_back({WindowType::time, w, s});
  o.lateness = lateness;
  o.windows_per_tree = windows_per_tree;
  return o;
}

inline StreamWindowOptions count_options(std::vector<std::pair<std::int64_t, std::int64_t>> specs,
                                         std::int64_t windows_per_tree = 64) {
  StreamWindowOptions o = time_options(std::move(specs), 0, windows_per_tree);
  for (auto& s : o.specs) s.type = WindowType::count;
  return o;
}

}  // namespace stream_conformance

// Runs `tuples` through StreamWindowOperator<Backend, A> (made with `config`) in batches, polling
// after each push and checking the firing time; then finishes and compares every window with the
// reference (spec, key, start, end exactly; values within `tolerance`, relative, for floating
// outputs) and the counters (tuples in, late drops, ignored watermarks, windows, batches).
// Polls take turns: into empty columns (the operator's buffers are traded), appended to the
// columns polled so far, and as rows (after finish).
template <class Backend, window::StreamAggregate A>
void check_stream_window(const std::vector<window::testing::RefTuple<typename A::Input>>& tuples,
                         const window::StreamWindowOptions& options,
                         const stream_conformance::Batching& batching, const typename Backend::Config& config,
                         std::uint64_t seed = 7, double tolerance = stream_conformance::tolerance_of<A>()) {
  using namespace stream_conformance;
  using Out = typename A::Output;
  SCOPED_TRACE(std::string("aggregate ") + std::string(A::name));
  ReferenceCounts counts;
  const auto want = window::testing::reference_windows<A>(tuples, options, &counts);

  window::StreamWindowOperator<Backend, A> op(options, config);
  FiringCheck<Out> firing(want, options);
  std::vector<WindowResult<Out>> got, newly;
  window::WindowColumns<Out> polled;
  std::mt19937_64 rng(seed);
  std::uint64_t pushes = 0;
  for (std::size_t begin = 0; begin < tuples.size() || (tuples.empty() && pushes == 0);) {
    std::size_t size = batching.size == 0 ? tuples.size() : batching.size;
    if (batching.random) size = std::uniform_int_distribution<std::size_t>(0, batching.size)(rng);
    const std::size_t end = std::min(tuples.size(), begin + size);
    const BatchColumns<typename A::Input> columns(tuples, begin, end);
    op.push(columns.batch());
    ++pushes;
    newly.clear();
    if (pushes % 2 == 1) {
      window::WindowColumns<Out> fresh;
      op.poll(fresh);
      newly = fresh.rows();
      polled.append(fresh);
    } else {
      const std::size_t before = polled.size();
      op.poll(polled);
      for (std::size_t i = before; i < polled.size(); ++i) newly.push_back(polled.row(i));
    }
    got.insert(got.end(), newly.begin(), newly.end());
    const auto fired = firing.after_push(tuples, begin, end, op.watermark(), newly, got.size());
    if (!fired) {
      ADD_FAILURE() << fired.message();
      return;
    }
    begin = end;
  }
  op.finish();
  op.poll(got);
  window::testing::sort_results(got);
  EXPECT_TRUE(same_results(got, want, tolerance));
  const window::StreamCounters c = op.counters();
  EXPECT_EQ(c.tuples_in, tuples.size());
  EXPECT_EQ(c.late_dropped, counts.late);
  EXPECT_EQ(c.watermarks_ignored, counts.watermarks_ignored);
  EXPECT_EQ(c.windows_emitted, want.size());
  EXPECT_EQ(c.batches, pushes);
}

}  // namespace sextant::testing
