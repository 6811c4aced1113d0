// An independent, deliberately simple reference for stream windows: replays the tuples in
// arrival order to decide which are late (DESIGN.md semantics), then recomputes every window
// from the tuples it contains. No panes, no trees, no batching: O(windows x tuples per key).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window::testing {

template <WindowValue V>
struct RefTuple {
  StreamKey key = 0;
  std::int64_t ts = 0;
  V value{};
  std::int64_t wm = 0;  // no_watermark: the tuple carries none
};

struct ReferenceCounts {
  std::uint64_t late = 0;
  std::uint64_t watermarks_ignored = 0;
};

inline bool result_less(std::uint32_t spec_a, StreamKey key_a, std::int64_t start_a, std::uint32_t spec_b,
                        StreamKey key_b, std::int64_t start_b) {
  return std::tie(spec_a, key_a, start_a) < std::tie(spec_b, key_b, start_b);
}

template <class Output>
void sort_results(std::vector<WindowResult<Output>>& results) {
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) {
    return result_less(a.spec, a.key, a.start, b.spec, b.key, b.start);
  });
}

// Every window the operator must emit over the whole stream (after finish), sorted by
// (spec, key, start). `counts` receives the late and ignored-watermark totals.
template <StreamAggregate A>
std::vector<WindowResult<typename A::Output>> reference_windows(
    const std::vector<RefTuple<typename A::Input>>& tuples, const StreamWindowOptions& options,
    ReferenceCounts* counts = nullptr) {
  using V = typename A::Input;
  const WindowType type = options.specs.front().type;
  ReferenceCounts c;
  // Per key, the accepted tuples as (position or timestamp, value, timestamp), in arrival order.
  std::map<StreamKey, std::vector<std::tuple<std::int64_t, V, std::int64_t>>> accepted;
  std::int64_t wm = no_watermark;
  for (const auto& t : tuples) {
    auto& list = accepted[t.key];
    if (type == WindowType::count) {
      list.emplace_back(static_cast<std::int64_t>(list.size()), t.value, t.ts);
    } else if (wm != no_watermark && t.ts + options.lateness < wm) {
      ++c.late;
    } else {
      list.emplace_back(t.ts, t.value, t.ts);
    }
    if (t.wm == no_watermark) continue;
    if (t.wm < wm)
      ++c.watermarks_ignored;
    else
      wm = t.wm;
  }
  std::vector<WindowResult<typename A::Output>> out;
  for (std::uint32_t spec = 0; spec < options.specs.size(); ++spec) {
    const std::int64_t W = options.specs[spec].length, S = options.specs[spec].slide;
    for (const auto& [key, list] : accepted) {
      if (list.empty()) continue;
      // The windows that contain at least one of the key's tuples, from the definition:
      // k*S <= x < k*S + W. Count windows: only full ones (k*S + W <= tuples of the key).
      const std::int64_t n = static_cast<std::int64_t>(list.size());
      std::vector<std::int64_t> ks;
      for (const auto& [x, v, ts] : list)
        for (std::int64_t k = x / S; k >= 0 && k * S + W > x; --k)
          if (type == WindowType::time || k * S + W <= n) ks.push_back(k);
      std::sort(ks.begin(), ks.end());
      ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
      for (const std::int64_t k : ks) {
        auto acc = A::identity();
        std::int64_t hits = 0;
        for (const auto& [x, v, ts] : list)
          if (x >= k * S && x < k * S + W) {
            acc = A::combine(acc, lift<A>(v, {ts}));
            ++hits;
          }
        if (hits > 0) out.push_back({spec, key, k * S, k * S + W, A::lower(acc)});
      }
    }
  }
  sort_results(out);
  if (counts) *counts = c;
  return out;
}

}  // namespace sextant::window::testing
