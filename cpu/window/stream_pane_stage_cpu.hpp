// The CPU pane-level stage (paper 000, PLS; hook contract in templates/window/stream_hooks.hpp).
//
// push: a validation pass (every timestamp >= 0, columns of one length) over the whole batch
// before anything changes; then the batch is cut into slices, one per thread (time windows
// with large batches only), and each slice is pre-aggregated into that thread's own pane
// shard: per-thread partials of the same key and pane are merged at release. The watermark
// before each slice comes from the validation pass (each slice's largest watermark), so the
// late test of every tuple sees exactly the running maximum of the tuples before it.
// release: each shard hands over its panes below the frontier; with several shards they are
// merged by (key, pane).
//
// In-order batches of one key (fine slides: a tuple or a few per pane) skip the ring for the
// panes that close at this push: they are reduced straight from the tuples and handed over at
// the release, after the ring's own panes (push_in_order).
//
// Time windows may instead hold their pending panes densely, as rows over every key
// (stream_dense_panes.hpp, window stage `dense`): asked for, or with `automatic` chosen at the
// first release that closes a pane when the keys are many and enough (key, pane) cells are taken
// (policy::stream_dense_min_keys, stream_dense_min_cells); the shards' panes then move into the
// rows and the layout stays dense. A first batch that meets that rule on its own starts dense at
// once, without shards (start_dense_if_full).
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/column_vector.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "cpu/window/stream_builtin_aggregates.hpp"
#include "cpu/window/stream_closed_panes.hpp"
#include "cpu/window/stream_dense_panes.hpp"
#include "cpu/window/stream_pane_kernel.hpp"
#include "cpu/window/stream_pane_shard_impl.hpp"
#include "cpu/window/stream_parallel.hpp"
#include "cpu/window/stream_window_cpu_config.hpp"
#include "templates/window/count_window_policy.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window {

namespace detail {
// Throws Error (bad_input) unless every column has the values' length (keys and watermarks
// may be empty).
void check_stream_columns(std::size_t values, std::size_t keys, std::size_t timestamps,
                          std::size_t watermarks);
// Throws Error (bad_input) naming the first tuple with a negative timestamp.
[[noreturn]] void throw_negative_timestamp(const std::int64_t* timestamps, std::size_t n);
}  // namespace detail

template <StreamAggregate A>
class CpuPaneStage {
 public:
  static constexpr std::string_view name = "cpu";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  using Value = typename A::Input;
  using ClosedPanes = CpuClosedPanes<A>;

  CpuPaneStage(const StreamGeometry& g, const CpuStreamConfig& c)
      : geometry_(g),
        divider_(g.pane),
        threads_(c.threads > 0 ? c.threads : omp_get_max_threads()),
        min_per_thread_(std::max<std::size_t>(1, c.min_tuples_per_thread)),
        min_tuples_per_pane_to_split_(c.min_tuples_per_pane_to_split),
        layout_(count() || (g.window_stage != WindowStageKind::automatic &&
                            g.window_stage != WindowStageKind::dense)
                    ? Layout::sparse
                : g.window_stage == WindowStageKind::dense ? Layout::dense
                                                           : Layout::undecided),
        dense_(policy::stream_dense_ring_bytes, threads_) {
    shards_.emplace_back(g);
  }

  void push(const StreamBatch<Value>& batch);
  void release(ClosedPanes& closed) { release_below(count() ? 0 : geometry_.closed_panes(wm_), closed); }
  void release_all(ClosedPanes& closed) {
    release_below(count() ? 0 : std::numeric_limits<std::int64_t>::max(), closed);
  }
  // Whether the pending panes are held as rows over every key.
  bool dense() const noexcept { return layout_ == Layout::dense; }
  void advance_watermark(std::int64_t wm) {
    if (wm >= wm_)
      wm_ = wm;
    else if (wm != no_watermark)
      ++counters_.watermarks_ignored;
  }
  std::int64_t watermark() const { return wm_; }
  StreamCounters counters() const { return counters_; }

 private:
  bool count() const noexcept { return geometry_.type == WindowType::count; }
  void accumulate(detail::PaneShard<A>& shard, const detail::PaneInput<Value>& in,
                  detail::PaneTally& tally) const;
  void release_below(std::int64_t frontier, ClosedPanes& closed);
  // Sparse layout, one shard, a batch of one key that is in order and on time: the panes below
  // the frontier this push reaches that the ring does not hold yet go to direct_ rather than the
  // ring. False, having changed nothing, for any other batch.
  // Runs before the validation pass (an in-order batch needs none: its first and last timestamps
  // are its limits).
  bool push_in_order(const StreamBatch<Value>& batch);
  // The direct panes into the ring: a push or a release at another frontier than the one they were
  // cut for (the template never does it; the hook contract allows it).
  void flush_direct();
  std::uint32_t global_id(std::size_t shard, std::uint32_t local);
  // Several shards' released panes into `closed`, key by key (time windows).
  void merge_shards(std::int64_t frontier, ClosedPanes& closed);
  // The runs [begin, end) of runs_ (one key's, one per shard at most) appended to `out` as one run.
  void merge_key(std::size_t begin, std::size_t end, std::int64_t frontier, ClosedPanes& out);
  // The batch into the rows. `tentative` (an undecided layout's first batch): only if the batch
  // alone meets the dense rule (start_dense_if_full); false, having changed nothing, otherwise.
  template <bool HasWm>
  bool accumulate_dense(const detail::PaneInput<Value>& in, const std::vector<std::size_t>& bounds,
                        const std::vector<detail::SliceScan>& scans, detail::PaneTally& tally,
                        bool tentative);
  // choose_layout's rule on one batch: its on-time cells (distinct key and pane) against its keys
  // and the panes it spans. True, with the layout dense from the batch's first pane, when met.
  bool start_dense_if_full(const std::uint32_t* ids, const std::int64_t* panes,
                           const std::vector<std::size_t>& bounds);
  // The batch's on-time tuples (pane >= 0) into the rows, in arrival order, on this thread.
  void combine_dense(const detail::PaneInput<Value>& in, const std::uint32_t* ids, const std::int64_t* panes);
  // The same on `parts` threads, each owning a range of key ids: the slices (`bounds`) first
  // partition their tuples by range, so that every thread reads only its own.
  void combine_dense_by_keys(const detail::PaneInput<Value>& in, const std::uint32_t* ids,
                             const std::int64_t* panes, const std::vector<std::size_t>& bounds,
                             std::uint32_t keys, int parts);
  // Automatic layout, at a release that closes a pane: dense when the cost model says so (the
  // shards' panes then move into the rows).
  void choose_layout(std::int64_t frontier);

  enum class Layout : std::uint8_t { undecided, sparse, dense };

  StreamGeometry geometry_;
  detail::PaneDivider divider_;
  int threads_;
  std::size_t min_per_thread_;
  std::uint64_t min_tuples_per_pane_to_split_;
  Layout layout_;
  detail::DensePanes<A> dense_;
  std::vector<std::uint32_t> dense_ids_;              // the batch's key ids
  std::vector<std::int64_t> dense_panes_;             // and pane ids (-1: late)
  std::vector<std::uint32_t> dense_mine_;             // combine_dense: the on-time tuples of a chunk
  ColumnVector<detail::DenseTuple<A>> dense_tuples_;  // combine_dense_by_keys: the tuples by part
  std::vector<std::size_t> dense_offsets_;            // and where each (slice, part) writes them
  std::vector<std::size_t> dense_line_tuples_;        // per slice and line of 64 ids: on-time tuples
  std::vector<std::uint16_t> dense_line_part_;        // per line: its part
  // The dense layout splits the combines over threads by key, at least this many keys each. One
  // thread gathers the on-time tuples of chunks of this many (12 bytes each: 768 KiB).
  static constexpr std::uint32_t dense_part_keys = 1024;
  static constexpr std::size_t dense_gather_tuples = std::size_t{1} << 16;
  std::vector<detail::PaneShard<A>> shards_;
  struct Direct {
    std::vector<std::int64_t> panes;  // [0, count) in ascending order; sized to the largest batch
    std::vector<Partial<A>> partials;
    std::size_t count = 0;
    std::uint32_t local = 0;    // their key in shards_[0]
    std::int64_t frontier = 0;  // the frontier they close at
  } direct_;
  std::vector<detail::ShardRelease<A>> released_panes_;
  // merge_shards' scratch: every shard's runs by key, where each key's runs start, and per part
  // of the keys the panes it merged.
  struct RunRef {
    std::uint32_t id, shard, begin, end;
  };
  struct KeyRuns {
    std::size_t run, panes_before;
  };
  std::vector<RunRef> runs_;
  std::vector<KeyRuns> key_runs_;
  std::vector<ClosedPanes> merged_;
  // Threads merge ranges of at least this many keys.
  static constexpr std::size_t merge_part_keys = 64;
  detail::KeyIndex ids_;  // key -> the dense id the window stage sees
  std::vector<StreamKey> key_of_id_;
  std::int64_t wm_ = no_watermark;
  std::int64_t released_ = 0;  // time windows: the frontier of the last release
  StreamCounters counters_;
};

template <StreamAggregate A>
void CpuPaneStage<A>::accumulate(detail::PaneShard<A>& shard, const detail::PaneInput<Value>& in,
                                 detail::PaneTally& tally) const {
  if constexpr (detail::builtin_stream_aggregate<A>) {
    cpu::dispatch_isa([&](auto isa) {
      detail::accumulate_slice<A, decltype(isa)>(shard, in, divider_, geometry_.lateness, count(), tally);
    });
  } else {
    detail::accumulate_slice<A, cpu::ScalarIsa>(shard, in, divider_, geometry_.lateness, count(), tally);
  }
}

template <StreamAggregate A>
void CpuPaneStage<A>::push(const StreamBatch<Value>& batch) {
  const std::size_t n = batch.size();
  detail::check_stream_columns(n, batch.keys.size(), batch.timestamps.size(), batch.watermarks.size());
  const std::int64_t* ts = batch.timestamps.data();
  const std::int64_t* wms = batch.watermarks.empty() ? nullptr : batch.watermarks.data();
  // Count windows number each key's tuples in arrival order: one shard.
  int parts = count() ? 1
                      : static_cast<int>(std::clamp<std::size_t>(n / min_per_thread_, 1,
                                                                 static_cast<std::size_t>(threads_)));
  // A batch of few tuples per pane (its first and last timestamps span nearly as many panes as
  // it has tuples) stays whole: the shards' merge would cost more than the split saves.
  if (parts > 1) {
    const auto a = static_cast<std::uint64_t>(ts[0]), b = static_cast<std::uint64_t>(ts[n - 1]);
    const std::uint64_t span = (a < b ? b - a : a - b) / static_cast<std::uint64_t>(geometry_.pane);
    if (span * min_tuples_per_pane_to_split_ > n) parts = 1;
  }
  if (direct_.count > 0) flush_direct();
  if (parts == 1 && push_in_order(batch)) return;
  std::vector<std::size_t> bounds(static_cast<std::size_t>(parts) + 1);
  for (int t = 0; t <= parts; ++t)
    bounds[t] = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(parts);
  std::vector<detail::SliceScan> scans(static_cast<std::size_t>(parts));
  detail::parallel_parts(parts, threads_, [&](int t) {
    const std::size_t b = bounds[t], len = bounds[t + 1] - b;
    scans[t] = cpu::dispatch_isa(
        // One slice needs no watermark maximum: it starts at the operator's watermark.
        [&](auto isa) {
          return detail::scan_slice<decltype(isa)>(ts + b, wms && parts > 1 ? wms + b : nullptr, len);
        });
  });
  // Nothing has changed yet: a bad timestamp leaves the stage as it was.
  for (int t = 0; t < parts; ++t) {
    if (scans[t].min_ts < 0) detail::throw_negative_timestamp(ts, n);
    if (!count() && scans[t].max_ts > geometry_.max_timestamp) {
      const std::size_t i = first_timestamp_above(ts, n, geometry_.max_timestamp);
      throw_timestamp_above("stream batch: tuple " + std::to_string(i), ts[i], geometry_.max_timestamp);
    }
  }

  // Automatic layout: a first batch with enough tuples for the dense rule in each pane it spans
  // may start dense right away (start_dense_if_full).
  bool tentative = false;
  if (layout_ == Layout::undecided && counters_.tuples_in == 0 && !batch.keys.empty()) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
    for (const auto& scan : scans) {
      lo = std::min(lo, scan.min_ts);
      hi = std::max(hi, scan.max_ts);
    }
    const auto span = static_cast<double>(divider_(hi) - divider_(lo)) + 1;
    tentative = static_cast<double>(n) >= policy::stream_dense_min_cells(policy::stream_dense_min_keys, span);
  }
  if (layout_ == Layout::dense || tentative) {
    detail::PaneTally tally;
    tally.watermark = wm_;
    detail::PaneInput<Value> in;
    in.keys = batch.keys.empty() ? nullptr : batch.keys.data();
    in.timestamps = ts;
    in.values = batch.values.data();
    in.watermarks = wms;
    in.size = n;
    if (wms ? accumulate_dense<true>(in, bounds, scans, tally, tentative)
            : accumulate_dense<false>(in, bounds, scans, tally, tentative)) {
      counters_.late_dropped += tally.late;
      counters_.watermarks_ignored += tally.ignored;
      wm_ = tally.watermark;
      counters_.tuples_in += n;
      return;
    }
  }
  std::vector<detail::PaneTally> tallies(static_cast<std::size_t>(parts));
  std::int64_t wm = wm_;
  for (int t = 0; t < parts; ++t) {
    tallies[t].watermark = wm;
    if (wms != nullptr) wm = std::max(wm, scans[t].max_wm);
  }
  while (shards_.size() < static_cast<std::size_t>(parts)) shards_.emplace_back(geometry_);
  detail::parallel_parts(parts, threads_, [&](int t) {
    const std::size_t b = bounds[t];
    detail::PaneInput<Value> in;
    in.keys = batch.keys.empty() ? nullptr : batch.keys.data() + b;
    in.timestamps = ts + b;
    in.values = batch.values.data() + b;
    in.watermarks = wms ? wms + b : nullptr;
    in.size = bounds[t + 1] - b;
    accumulate(shards_[t], in, tallies[t]);
  });
  for (const auto& t : tallies) {
    counters_.late_dropped += t.late;
    counters_.watermarks_ignored += t.ignored;
  }
  wm_ = tallies.back().watermark;
  counters_.tuples_in += n;
}

template <StreamAggregate A>
bool CpuPaneStage<A>::push_in_order(const StreamBatch<Value>& batch) {
  const std::size_t n = batch.size();
  if (count() || layout_ != Layout::sparse || shards_.size() != 1 || n == 0) return false;
  const std::int64_t* ts = batch.timestamps.data();
  const std::int64_t* wms = batch.watermarks.empty() ? nullptr : batch.watermarks.data();
  const StreamKey* keys = batch.keys.empty() ? nullptr : batch.keys.data();
  const StreamKey key = keys != nullptr ? keys[0] : 0;
  detail::PaneShard<A>& shard = shards_[0];
  if (shard.keys() > 1 || (shard.keys() == 1 && shard.key_of(0) != key)) return false;
  const std::int64_t lateness = geometry_.lateness;
  if (ts[0] < detail::kernel::late_threshold(wm_, lateness) || (wms != nullptr && wms[0] < wm_)) return false;
  if (keys != nullptr && !detail::kernel::one_key<cpu::ScalarIsa>(keys, n)) return false;
  if (!cpu::dispatch_isa(
          [&](auto isa) { return detail::in_order_slice<decltype(isa)>(ts, wms, n, lateness); }))
    return false;
  // The validation pass's limits are the first and last timestamps (any other batch: its error).
  if (ts[0] < 0 || ts[n - 1] > geometry_.max_timestamp) return false;
  // In order: nothing is late, no watermark is ignored, the last watermark is the largest.
  const std::int64_t wm_after = wms != nullptr ? wms[n - 1] : wm_;
  const std::int64_t frontier = geometry_.closed_panes(wm_after);
  std::uint32_t id = shard.find(key);
  if (id == detail::KeyIndex::absent) id = shard.add_key(key);
  // [0, j0): panes the ring holds already; [j0, m): panes that close now; [m, n): still open.
  const auto first_reaching = [&](std::size_t from, std::int64_t pane) {
    return static_cast<std::size_t>(
        std::partition_point(ts + from, ts + n, [&](std::int64_t t) { return divider_(t) < pane; }) - ts);
  };
  const std::int64_t held = shard.max_pending(id);
  const std::size_t j0 = held == std::numeric_limits<std::int64_t>::min() ? 0 : first_reaching(0, held + 1);
  const std::size_t m = std::max(j0, first_reaching(j0, frontier));
  const auto accumulate_range = [&](std::size_t b, std::size_t e) {
    if (b == e) return;
    detail::PaneTally tally;
    tally.watermark = b == 0 || wms == nullptr ? wm_ : wms[b - 1];
    detail::PaneInput<Value> in;
    in.keys = keys != nullptr ? keys + b : nullptr;
    in.timestamps = ts + b;
    in.values = batch.values.data() + b;
    in.watermarks = wms != nullptr ? wms + b : nullptr;
    in.size = e - b;
    accumulate(shard, in, tally);
  };
  accumulate_range(0, j0);
  if (m > j0) {
    if (direct_.panes.size() < m - j0) {
      direct_.panes.resize(m - j0);
      direct_.partials.resize(m - j0);
    }
    direct_.count = detail::reduce_in_order<A>(ts + j0, batch.values.data() + j0, m - j0, divider_,
                                               direct_.panes.data(), direct_.partials.data());
    direct_.local = id;
    direct_.frontier = frontier;
  }
  accumulate_range(m, n);
  wm_ = std::max(wm_, wm_after);
  counters_.tuples_in += n;
  return true;
}

template <StreamAggregate A>
void CpuPaneStage<A>::flush_direct() {
  for (std::size_t i = 0; i < direct_.count; ++i)
    shards_[0].place(direct_.local, direct_.panes[i], direct_.partials[i]);
  direct_.count = 0;
}

template <StreamAggregate A>
template <bool HasWm>
bool CpuPaneStage<A>::accumulate_dense(const detail::PaneInput<Value>& in,
                                       const std::vector<std::size_t>& bounds,
                                       const std::vector<detail::SliceScan>& scans, detail::PaneTally& tally,
                                       bool tentative) {
  const std::size_t n = in.size;
  const int slices = static_cast<int>(scans.size());
  dense_.recycle();
  // (1) Per slice of tuples, in parallel: key ids, and pane ids with late tuples marked -1 (each
  // slice starts from the watermark the validation pass found before it). New keys then get
  // their ids serially, in arrival order.
  dense_ids_.resize(n);
  dense_panes_.resize(n);
  std::uint32_t* ids = dense_ids_.data();
  std::int64_t* panes = dense_panes_.data();
  std::uint32_t key0 = detail::KeyIndex::absent;  // unkeyed: every tuple has key 0
  if (in.keys == nullptr) {
    key0 = ids_.find(0);
    if (key0 == detail::KeyIndex::absent) {
      key0 = ids_.insert(0);
      key_of_id_.push_back(0);
    }
  }
  std::vector<detail::PaneTally> tallies(static_cast<std::size_t>(slices));
  for (std::size_t t = 0; t < tallies.size(); ++t)
    tallies[t].watermark =
        t == 0 || !HasWm ? tally.watermark : std::max(tallies[t - 1].watermark, scans[t - 1].max_wm);
  std::vector<std::uint8_t> missing(static_cast<std::size_t>(slices), 0);
  const std::int64_t lateness = geometry_.lateness;
  detail::parallel_parts(slices, threads_, [&](int t) {
    const std::size_t b = bounds[static_cast<std::size_t>(t)], e = bounds[static_cast<std::size_t>(t) + 1];
    detail::PaneTally& tl = tallies[static_cast<std::size_t>(t)];
    if (in.keys != nullptr) {
      detail::kernel::lookup_keys<cpu::ScalarIsa>(ids_, in.keys + b, e - b, ids + b);
      missing[static_cast<std::size_t>(t)] = std::find(ids + b, ids + e, detail::KeyIndex::absent) != ids + e;
    } else {
      std::fill(ids + b, ids + e, key0);
    }
    std::int64_t wm = tl.watermark;
    std::int64_t threshold = detail::kernel::late_threshold(wm, lateness);
    std::uint64_t late = 0, ignored = 0;
    for (std::size_t i = b; i < e; ++i) {
      const std::int64_t ts = in.timestamps[i];
      const bool on_time = ts >= threshold;
      panes[i] = on_time ? divider_(ts) : -1;
      late += !on_time;
      if constexpr (HasWm)
        detail::kernel::follow_watermark(in.watermarks[i], lateness, wm, threshold, ignored);
    }
    tl = {late, ignored, wm};
  });
  if (std::find(missing.begin(), missing.end(), 1) != missing.end())
    for (std::size_t i = 0; i < n; ++i)
      if (ids[i] == detail::KeyIndex::absent) {
        ids[i] = ids_.find(in.keys[i]);  // an earlier tuple may have added it
        if (ids[i] == detail::KeyIndex::absent) {
          ids[i] = ids_.insert(in.keys[i]);
          key_of_id_.push_back(in.keys[i]);
        }
      }
  if (tentative && !start_dense_if_full(ids, panes, bounds)) {  // per key then: as it was
    ids_ = detail::KeyIndex{};
    key_of_id_.clear();
    dense_ids_ = {};
    dense_panes_ = {};
    return false;
  }
  const std::uint32_t keys = ids_.size();
  dense_.reserve_keys(keys);
  std::int64_t max_ts = 0;
  for (const auto& scan : scans) max_ts = std::max(max_ts, scan.max_ts);
  if (n > 0) dense_.reserve_panes(divider_(max_ts));
  // (2) The combines. Many keys: split by key range over threads (every cell then sees its
  // tuples in arrival order); one part otherwise.
  // (A part is a 16-bit number, a tuple's cell a 32-bit index.)
  const int parts = slices > 1 && keys >= 4 * dense_part_keys && dense_.cells() <= (std::uint64_t{1} << 32)
                        ? static_cast<int>(std::min<std::size_t>(
                              {static_cast<std::size_t>(threads_), keys / dense_part_keys, 65535}))
                        : 1;
  if (parts == 1)
    combine_dense(in, ids, panes);
  else
    combine_dense_by_keys(in, ids, panes, bounds, keys, parts);
  for (const auto& t : tallies) {
    tally.late += t.late;
    tally.ignored += t.ignored;
  }
  tally.watermark = tallies.back().watermark;
  return true;
}

template <StreamAggregate A>
bool CpuPaneStage<A>::start_dense_if_full(const std::uint32_t* ids, const std::int64_t* panes,
                                          const std::vector<std::size_t>& bounds) {
  const std::uint32_t keys = ids_.size();
  if (keys < policy::stream_dense_min_keys) return false;
  const int slices = static_cast<int>(bounds.size()) - 1;
  struct Span {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
    std::uint64_t on_time = 0;
  };
  std::vector<Span> spans(static_cast<std::size_t>(slices));
  detail::parallel_parts(slices, threads_, [&](int t) {
    Span r;
    for (std::size_t i = bounds[static_cast<std::size_t>(t)], e = bounds[static_cast<std::size_t>(t) + 1];
         i < e; ++i)
      if (panes[i] >= 0) {
        r.lo = std::min(r.lo, panes[i]);
        r.hi = std::max(r.hi, panes[i]);
        ++r.on_time;
      }
    spans[static_cast<std::size_t>(t)] = r;
  });
  Span all;
  for (const Span& r : spans) {
    all.lo = std::min(all.lo, r.lo);
    all.hi = std::max(all.hi, r.hi);
    all.on_time += r.on_time;
  }
  if (all.on_time == 0) return false;
  const auto span = static_cast<std::uint64_t>(all.hi - all.lo) + 1;
  const double need = policy::stream_dense_min_cells(keys, static_cast<double>(span));
  if (static_cast<double>(all.on_time) < need) return false;  // fewer tuples than the cells it takes
  // The cells as bits of a pane x key table. Where that table would outweigh the batch's ids (many
  // keys, few cells needed), the first release judges the layout instead, from the shards.
  if (span * keys > 32 * all.on_time) return false;
  std::vector<std::uint64_t> seen((span * keys + 63) / 64, 0);
  detail::parallel_parts(slices, threads_, [&](int t) {
    for (std::size_t i = bounds[static_cast<std::size_t>(t)], e = bounds[static_cast<std::size_t>(t) + 1];
         i < e; ++i)
      if (panes[i] >= 0) {
        const std::uint64_t bit = static_cast<std::uint64_t>(panes[i] - all.lo) * keys + ids[i];
        std::atomic_ref<std::uint64_t> word(seen[bit >> 6]);
        const std::uint64_t mask = std::uint64_t{1} << (bit & 63);
        if ((word.load(std::memory_order_relaxed) & mask) == 0)
          word.fetch_or(mask, std::memory_order_relaxed);
      }
  });
  std::uint64_t cells = 0;
  for (const std::uint64_t w : seen) cells += static_cast<std::uint64_t>(std::popcount(w));
  if (static_cast<double>(cells) < need) return false;
  layout_ = Layout::dense;
  dense_.start(all.lo);
  return true;
}

template <StreamAggregate A>
void CpuPaneStage<A>::combine_dense(const detail::PaneInput<Value>& in, const std::uint32_t* ids,
                                    const std::int64_t* panes) {
  constexpr std::size_t ahead = 16;
  auto ring = dense_.ring();
  // Rows over many keys outgrow L2: prefetch then.
  const bool deep = ring.stride * sizeof(typename A::Acc) > (std::size_t{1} << 14);
  for (std::size_t base = 0; base < in.size; base += dense_gather_tuples) {
    const std::size_t m = std::min(dense_gather_tuples, in.size - base);
    // The chunk's on-time tuples, gathered without a branch per tuple.
    dense_mine_.resize(m);
    std::uint32_t* mine = dense_mine_.data();
    std::size_t count = 0;
    for (std::size_t i = 0; i < m; ++i) {
      mine[count] = static_cast<std::uint32_t>(i);
      count += static_cast<std::size_t>(panes[base + i] >= 0);
    }
    for (std::size_t j = 0; j < count; ++j) {
      if (deep && j + ahead < count) {
        const std::size_t a = base + mine[j + ahead];
        __builtin_prefetch(ring.cell(ids[a], panes[a]), 1);
      }
      const std::size_t i = base + mine[j];
      const auto p = Partial<A>::lift(in.values[i], {in.timestamps[i]});
      if (!ring.add(ids[i], panes[i], p)) [[unlikely]] {
        dense_.add_slow(ids[i], panes[i], p);  // the ring may grow now
        ring = dense_.ring();
      }
    }
  }
}

template <StreamAggregate A>
void CpuPaneStage<A>::combine_dense_by_keys(const detail::PaneInput<Value>& in, const std::uint32_t* ids,
                                            const std::int64_t* panes, const std::vector<std::size_t>& bounds,
                                            std::uint32_t keys, int parts) {
  const auto slices = static_cast<int>(bounds.size()) - 1;
  const auto np = static_cast<std::size_t>(parts);
  // (a) Each slice counts its tuples for the ring per line of 64 ids (the ring stays as it is
  // until every part is done).
  const auto ring = dense_.ring();
  const std::size_t lines = (std::size_t{keys} + 63) / 64;
  dense_line_tuples_.assign(static_cast<std::size_t>(slices) * lines, 0);
  detail::parallel_parts(slices, threads_, [&](int t) {
    std::size_t* count = dense_line_tuples_.data() + static_cast<std::size_t>(t) * lines;
    for (std::size_t i = bounds[static_cast<std::size_t>(t)], e = bounds[static_cast<std::size_t>(t) + 1];
         i < e; ++i)
      count[ids[i] >> 6] += static_cast<std::size_t>(ring.holds(panes[i]));
  });
  // (b) Part p takes the lines from where the running count of tuples passes p / parts of them
  // (skewed keys load the parts evenly; a key's tuples stay in one part). The parts then lie one
  // after another, each holding its slices' tuples in slice order: arrival order.
  std::vector<std::size_t> line_total(lines, 0);
  for (std::size_t t = 0; t < static_cast<std::size_t>(slices); ++t)
    for (std::size_t l = 0; l < lines; ++l) line_total[l] += dense_line_tuples_[t * lines + l];
  std::size_t total = 0;
  for (const std::size_t c : line_total) total += c;
  dense_line_part_.resize(lines);
  for (std::size_t l = 0, p = 0, run = 0; l < lines; ++l) {
    dense_line_part_[l] = static_cast<std::uint16_t>(p);
    run += line_total[l];
    while (p + 1 < np && run * np >= (p + 1) * total) ++p;
  }
  const detail::KeyParts part_of{dense_line_part_.data()};
  dense_offsets_.assign(static_cast<std::size_t>(slices) * np, 0);
  for (std::size_t t = 0; t < static_cast<std::size_t>(slices); ++t)
    for (std::size_t l = 0; l < lines; ++l)
      dense_offsets_[t * np + dense_line_part_[l]] += dense_line_tuples_[t * lines + l];
  std::vector<std::size_t> part_begin(np + 1, 0);
  std::size_t at = 0;
  for (std::size_t p = 0; p < np; ++p) {
    part_begin[p] = at;
    for (std::size_t t = 0; t < static_cast<std::size_t>(slices); ++t)
      at += std::exchange(dense_offsets_[t * np + p], at);
  }
  part_begin[np] = at;
  // (c) Each slice writes its tuples to their parts; those of panes outside the ring aside.
  dense_tuples_.resize(at);
  detail::DenseTuple<A>* tuples = dense_tuples_.data();
  std::vector<std::vector<detail::DenseCell<A>>> outside(static_cast<std::size_t>(slices));
  detail::parallel_parts(slices, threads_, [&](int t) {
    const auto first = dense_offsets_.begin() + static_cast<std::ptrdiff_t>(t * np);
    std::vector<std::size_t> next(first, first + static_cast<std::ptrdiff_t>(np));
    detail::scatter_to_parts<A>(ids, panes, in.values, in.timestamps, bounds[static_cast<std::size_t>(t)],
                                bounds[static_cast<std::size_t>(t) + 1], ring, part_of, next.data(), tuples,
                                outside[static_cast<std::size_t>(t)]);
  });
  // (d) Each part combines its tuples into their cells.
  detail::parallel_parts(parts, threads_, [&](int p) {
    constexpr std::size_t ahead = 16;
    for (std::size_t j = part_begin[static_cast<std::size_t>(p)],
                     e = part_begin[static_cast<std::size_t>(p) + 1];
         j < e; ++j) {
      if (j + ahead < e) __builtin_prefetch(ring.cells + tuples[j + ahead].cell, 1);
      ring.add_at(tuples[j].cell, tuples[j].lift());
    }
  });
  // Then the panes outside the ring (which may grow now), slice by slice: in arrival order.
  for (const auto& slice : outside)
    for (const auto& c : slice) dense_.add(c.id, c.pane, c.p);
}

template <StreamAggregate A>
void CpuPaneStage<A>::choose_layout(std::int64_t frontier) {
  std::uint64_t cells = 0;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  for (const auto& shard : shards_) {
    const auto stats = shard.pending_stats();
    cells += stats.cells;
    lo = std::min(lo, stats.min_pane);
    hi = std::max(hi, stats.max_pane);
  }
  if (cells == 0 || frontier <= lo) return;  // nothing closes yet: no window stage state to keep
  layout_ = Layout::sparse;
  // The keys seen so far, across shards (each gets its stage id now rather than at its release).
  for (std::size_t t = 0; t < shards_.size(); ++t)
    for (std::uint32_t local = 0; local < shards_[t].keys(); ++local) global_id(t, local);
  const std::uint32_t keys = ids_.size();
  const double span = static_cast<double>(hi - lo) + 1;
  if (keys < policy::stream_dense_min_keys ||
      static_cast<double>(cells) < policy::stream_dense_min_cells(keys, span))
    return;
  // Every shard's panes, in shard (arrival) order, into the rows.
  layout_ = Layout::dense;
  dense_.start(lo);
  detail::ShardRelease<A> r;
  for (std::size_t t = 0; t < shards_.size(); ++t) {
    r.clear();
    shards_[t].release(std::numeric_limits<std::int64_t>::max(), r);
    for (const auto& run : r.runs) {
      const std::uint32_t id = global_id(t, run.local);
      dense_.reserve_keys(ids_.size());
      for (std::uint32_t i = run.begin; i < run.end; ++i) dense_.add(id, r.panes[i], r.partials[i]);
    }
  }
  shards_.clear();
  shards_.shrink_to_fit();
}

template <StreamAggregate A>
std::uint32_t CpuPaneStage<A>::global_id(std::size_t shard, std::uint32_t local) {
  std::uint32_t& id = shards_[shard].global_id(local);
  if (id == detail::KeyIndex::absent) {
    const StreamKey key = shards_[shard].key_of(local);
    id = ids_.find(key);
    if (id == detail::KeyIndex::absent) {
      id = ids_.insert(key);
      key_of_id_.push_back(key);
    }
  }
  return id;
}

template <StreamAggregate A>
void CpuPaneStage<A>::release_below(std::int64_t frontier, ClosedPanes& closed) {
  closed.clear();
  closed.frontier = frontier;
  closed.count_windows = count();
  if (layout_ == Layout::dense) {
    closed.dense_keys = dense_.keys();
    closed.key_of_id = key_of_id_.data();
  }
  if (!count()) {
    if (frontier <= released_) return;  // every pending pane is at or above the last frontier
    if (layout_ == Layout::undecided) choose_layout(frontier);
    released_ = frontier;
    if (layout_ == Layout::dense) {
      dense_.release(frontier, closed);
      closed.key_of_id = key_of_id_.data();  // after the conversion's new ids
      return;
    }
  }
  if (direct_.count > 0 && frontier != direct_.frontier) flush_direct();
  const std::size_t shards = shards_.size();
  released_panes_.resize(shards);
  for (auto& r : released_panes_) r.clear();
  detail::parallel_parts(static_cast<int>(shards), threads_,
                         [&](int t) { shards_[t].release(frontier, released_panes_[t]); });
  if (shards == 1) {
    auto& r = released_panes_[0];
    for (const auto& run : r.runs)
      closed.keys.push_back(
          {shards_[0].key_of(run.local), global_id(0, run.local), run.frontier, run.begin, run.end});
    closed.panes.swap(r.panes);
    closed.partials.swap(r.partials);
    if (direct_.count > 0) {
      // After the ring's panes of the same key (the shard's only key), which all lie below.
      const auto begin = static_cast<std::uint32_t>(closed.panes.size());
      closed.panes.insert(closed.panes.end(), direct_.panes.data(), direct_.panes.data() + direct_.count);
      closed.partials.insert(closed.partials.end(), direct_.partials.data(),
                             direct_.partials.data() + direct_.count);
      const auto end = static_cast<std::uint32_t>(closed.panes.size());
      if (closed.keys.empty())
        closed.keys.push_back(
            {shards_[0].key_of(direct_.local), global_id(0, direct_.local), frontier, begin, end});
      else
        closed.keys.back().end = end;
      direct_.count = 0;
    }
    return;
  }
  merge_shards(frontier, closed);
}

template <StreamAggregate A>
void CpuPaneStage<A>::merge_shards(std::int64_t frontier, ClosedPanes& closed) {
  // Each shard's runs list a key's panes in ascending order, so a key's runs (one per shard at
  // most) are merged head by head, the partials of one pane combined in shard order (arrival
  // order). Sorting runs, not panes: one tuple per pane costs O(panes).
  runs_.clear();
  for (std::size_t t = 0; t < shards_.size(); ++t)
    for (const auto& run : released_panes_[t].runs)
      runs_.push_back({global_id(t, run.local), static_cast<std::uint32_t>(t), run.begin, run.end});
  std::sort(runs_.begin(), runs_.end(),
            [](const RunRef& a, const RunRef& b) { return a.id != b.id ? a.id < b.id : a.shard < b.shard; });
  // Each key's first run, and the panes before it (what the keys before could merge into at most).
  key_runs_.clear();
  std::size_t panes = 0;
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    if (i == 0 || runs_[i].id != runs_[i - 1].id) key_runs_.push_back({i, panes});
    panes += runs_[i].end - runs_[i].begin;
  }
  const std::size_t keys = key_runs_.size();
  key_runs_.push_back({runs_.size(), panes});
  // Keys are independent: ranges of about equal panes merge on threads into buffers of their own,
  // which are then copied into place.
  const int parts = static_cast<int>(
      std::clamp<std::size_t>(keys / merge_part_keys, 1, static_cast<std::size_t>(threads_)));
  std::vector<std::size_t> first(static_cast<std::size_t>(parts) + 1, keys);
  for (int t = 0; t < parts; ++t) {
    const std::size_t target = panes * static_cast<std::size_t>(t) / static_cast<std::size_t>(parts);
    first[t] = static_cast<std::size_t>(
        std::partition_point(key_runs_.begin(), key_runs_.begin() + static_cast<std::ptrdiff_t>(keys),
                             [&](const KeyRuns& k) { return k.panes_before < target; }) -
        key_runs_.begin());
  }
  if (merged_.size() < static_cast<std::size_t>(parts)) merged_.resize(static_cast<std::size_t>(parts));
  detail::parallel_parts(parts, threads_, [&](int t) {
    ClosedPanes& out = merged_[static_cast<std::size_t>(t)];
    out.keys.clear();
    out.panes.clear();
    out.partials.clear();
    for (std::size_t k = first[t]; k < first[t + 1]; ++k)
      merge_key(key_runs_[k].run, key_runs_[k + 1].run, frontier, out);
  });
  std::vector<std::size_t> offset(static_cast<std::size_t>(parts) + 1, closed.panes.size());
  for (int t = 0; t < parts; ++t) {
    const ClosedPanes& part = merged_[static_cast<std::size_t>(t)];
    for (auto run : part.keys) {
      run.begin += static_cast<std::uint32_t>(offset[t]);
      run.end += static_cast<std::uint32_t>(offset[t]);
      closed.keys.push_back(run);
    }
    offset[t + 1] = offset[t] + part.panes.size();
  }
  closed.panes.resize(offset[parts]);
  closed.partials.resize(offset[parts]);
  detail::parallel_parts(parts, threads_, [&](int t) {
    const ClosedPanes& part = merged_[static_cast<std::size_t>(t)];
    std::copy_n(part.panes.data(), part.panes.size(), closed.panes.data() + offset[t]);
    std::copy_n(part.partials.data(), part.partials.size(), closed.partials.data() + offset[t]);
  });
}

template <StreamAggregate A>
void CpuPaneStage<A>::merge_key(std::size_t begin, std::size_t end, std::int64_t frontier, ClosedPanes& out) {
  const std::uint32_t id = runs_[begin].id;
  const auto at = static_cast<std::uint32_t>(out.panes.size());
  for (;;) {
    RunRef* next = nullptr;  // the run whose head pane is lowest (the first shard on a tie)
    for (std::size_t r = begin; r < end; ++r)
      if (runs_[r].begin < runs_[r].end &&
          (next == nullptr || released_panes_[runs_[r].shard].panes[runs_[r].begin] <
                                  released_panes_[next->shard].panes[next->begin]))
        next = &runs_[r];
    if (next == nullptr) break;
    const std::int64_t pane = released_panes_[next->shard].panes[next->begin];
    const Partial<A>& p = released_panes_[next->shard].partials[next->begin];
    ++next->begin;
    if (out.panes.size() > at && out.panes.back() == pane) {
      out.partials.back() = Partial<A>::combine(out.partials.back(), p);
    } else {
      out.panes.push_back(pane);
      out.partials.push_back(p);
    }
  }
  out.keys.push_back({key_of_id_[id], id, frontier, at, static_cast<std::uint32_t>(out.panes.size())});
}

// The built-ins' kernels and shard paths are compiled once, in the CPU library.
#define SEXTANT_DECLARE(A)                                                                            \
  extern template class detail::PaneShard<A>;                                                         \
  extern template void detail::accumulate_slice<A, cpu::ScalarIsa>(                                   \
      detail::PaneShard<A>&, const detail::PaneInput<typename A::Input>&, const detail::PaneDivider&, \
      std::int64_t, bool, detail::PaneTally&);                                                        \
  extern template void detail::accumulate_slice<A, cpu::Avx2Isa>(                                     \
      detail::PaneShard<A>&, const detail::PaneInput<typename A::Input>&, const detail::PaneDivider&, \
      std::int64_t, bool, detail::PaneTally&);
SEXTANT_STREAM_BUILTIN_AGGREGATES(SEXTANT_DECLARE)
#undef SEXTANT_DECLARE
extern template detail::SliceScan detail::scan_slice<cpu::ScalarIsa>(const std::int64_t*, const std::int64_t*,
                                                                     std::size_t);
extern template detail::SliceScan detail::scan_slice<cpu::Avx2Isa>(const std::int64_t*, const std::int64_t*,
                                                                   std::size_t);
extern template bool detail::in_order_slice<cpu::ScalarIsa>(const std::int64_t*, const std::int64_t*,
                                                            std::size_t, std::int64_t);
extern template bool detail::in_order_slice<cpu::Avx2Isa>(const std::int64_t*, const std::int64_t*,
                                                          std::size_t, std::int64_t);

}  // namespace sextant::window
