// The CPU window-level stage (paper 000, WLS; hook contract in
// templates/window/stream_hooks.hpp): per key and spec one B-PAT (stream_bpat.hpp) or one block
// scan (stream_pane_scan.hpp), created when the key's first pane closes. The spec's stage is the
// options' window_stage, or with `automatic` the cost model's choice (choose_cpu_window_stage). Each advance
// processes the keys with new closed panes and, for time windows, the keys whose next window the new frontier
// completes: a min-heap on that window's end pane finds them without visiting every key. Keys are processed
// in parallel; results are gathered per thread and appended in thread order.
//
// When the pane stage holds its panes densely (rows over every key), every spec runs the dense
// scan (stream_dense_scan.hpp) instead, threads taking ranges of keys.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "cpu/window/stream_bpat.hpp"
#include "cpu/window/stream_closed_panes.hpp"
#include "cpu/window/stream_dense_scan.hpp"
#include "cpu/window/stream_pane_scan.hpp"
#include "cpu/window/stream_window_cpu_config.hpp"
#include "templates/window/count_window_policy.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_results.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window {

// The stage for spec `g`: `requested` unless automatic; then the scan while the slide is fine
// enough that its pane steps per window cost less than the B-PAT's O(log w) combines.
inline WindowStageKind choose_cpu_window_stage(const SpecGeometry& g, WindowStageKind requested) noexcept {
  if (requested != WindowStageKind::automatic) return requested;
  return g.panes_per_slide <= policy::stream_scan_slide_per_level * g.tree_levels ? WindowStageKind::scan
                                                                                  : WindowStageKind::bpat;
}

template <StreamAggregate A>
class CpuWindowStage {
 public:
  static constexpr std::string_view name = "cpu";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  using Output = typename A::Output;
  using Results = WindowColumns<Output>;

  CpuWindowStage(const StreamGeometry& g, const CpuStreamConfig& c)
      : threads_(c.threads > 0 ? c.threads : omp_get_max_threads()) {
    std::uint32_t slots[2] = {0, 0};  // B-PATs, scans
    for (std::size_t i = 0; i < g.specs.size(); ++i) {
      detail::BpatShape& shape = shapes_.emplace_back(g.specs[i], static_cast<std::uint32_t>(i));
      // Dense: the per-key structures are never built; their memory check is the scan's.
      shape.stage = choose_cpu_window_stage(
          g.specs[i], g.window_stage == WindowStageKind::dense ? WindowStageKind::scan : g.window_stage);
      shape.slot = slots[shape.stage == WindowStageKind::scan]++;
    }
    bpats_ = slots[0];
    scans_ = slots[1];
    detail::check_window_stage_memory(shapes_, sizeof(Partial<A>));
  }

  void advance(const CpuClosedPanes<A>& closed, Results& out);

  // "dense", "bpat", "scan", or per spec ("spec 0 scan, spec 1 bpat").
  std::string describe() const {
    if (!dense_.empty()) return "dense";
    const auto all = [&](WindowStageKind k) {
      return std::all_of(shapes_.begin(), shapes_.end(), [&](const auto& g) { return g.stage == k; });
    };
    if (all(WindowStageKind::scan)) return "scan";
    if (all(WindowStageKind::bpat)) return "bpat";
    std::string out;
    for (const detail::BpatShape& g : shapes_)
      out += (out.empty() ? "spec " : ", spec ") + std::to_string(g.spec) + " " +
             std::string(to_string(g.stage));
    return out;
  }

 private:
  // A key's panes [begin, end) of the closed list, and its frontier.
  struct Work {
    std::uint32_t id, begin, end;
    std::int64_t frontier;
  };
  static constexpr std::int64_t idle = detail::Bpat<A>::idle;
  struct KeyTrees {
    StreamKey key = 0;
    std::uint64_t stamp = 0;                 // == stamp_: in this advance's work
    std::int64_t fire_at = idle;             // end pane of the next window holding a tuple (time)
    std::int64_t queued_at = idle;           // the heap holds (queued_at, id)
    std::vector<detail::Bpat<A>> trees;      // one per B-PAT spec, empty until the first pane
    std::vector<detail::PaneScan<A>> scans;  // one per scan spec
  };
  using Due = std::pair<std::int64_t, std::uint32_t>;

  void process(const Work& w, const CpuClosedPanes<A>& closed, detail::ColumnAppender<Output>& results,
               std::vector<std::uint64_t>& dirty);
  void advance_dense(const CpuClosedPanes<A>& closed, Results& out);
  // Runs f(t, results) for t < parts, on `parts` threads when more than one; their rows join
  // `out` in thread order. Each appends to its own buffer, copied into `out` afterwards; or, given
  // `bounds` (thread t appends at most bounds[t] rows), straight into its region of `out`, the
  // regions then closed up where a thread appended fewer (one thread: `out` is reserved for its
  // bound, so that it grows once). The first exception is rethrown. Returns the rows appended.
  template <class F>
  std::size_t in_threads(int parts, Results& out, F&& f, const std::vector<std::size_t>* bounds = nullptr);
  // Before work_[i] is processed: prefetches, in three steps that follow the pointers, the state
  // of the keys a few places ahead within [i, end) (with many keys every one of them is a chain
  // of cache misses). `end` bounds it to the calling thread's own items: another thread's keys
  // may be resized meanwhile. Always inline: GCC finds a function of prefetches alone free of
  // side effects and drops the call.
  [[gnu::always_inline]] void prefetch_ahead(std::size_t i, std::size_t end) const noexcept {
    const std::size_t last = end - 1;
    __builtin_prefetch(&keys_[work_[std::min(i + 12, last)].id]);
    __builtin_prefetch(keys_[work_[std::min(i + 6, last)].id].scans.data());
    for (const detail::PaneScan<A>& s : keys_[work_[std::min(i + 3, last)].id].scans) s.prefetch();
  }

  // Below this many keys, one thread: the parallel region costs more than it saves. Unless the
  // keys bring many panes between them: from parallel_min_keys keys on, as many closed panes
  // (each a few combines and a window) pay for it too.
  static constexpr std::size_t parallel_keys = 1024;
  static constexpr std::size_t parallel_min_keys = 64;
  static constexpr std::size_t parallel_panes = std::size_t{1} << 14;

  int threads_;
  std::vector<detail::BpatShape> shapes_;
  std::uint32_t bpats_ = 0, scans_ = 0;                                // specs per stage
  std::vector<KeyTrees> keys_;                                         // by dense key id
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;  // time windows
  std::vector<Work> work_;
  std::vector<Results> thread_out_;       // grown buffers, reused from push to push
  std::vector<std::size_t> thread_rows_;  // rows in each
  std::vector<std::vector<std::uint64_t>> thread_dirty_;
  std::uint64_t stamp_ = 0;
  std::vector<detail::DenseScan<A>> dense_;  // per spec, once the panes come as rows
  std::vector<std::size_t> dense_bounds_;    // per thread: the most rows its keys may fire
  bool dense_direct_ = false;                // the last dense advance fired all of them
};

template <StreamAggregate A>
void CpuWindowStage<A>::process(const Work& w, const CpuClosedPanes<A>& closed,
                                detail::ColumnAppender<Output>& results, std::vector<std::uint64_t>& dirty) {
  KeyTrees& k = keys_[w.id];
  if (k.trees.size() != bpats_) k.trees.resize(bpats_);
  if (k.scans.size() != scans_) k.scans.resize(scans_);
  std::int64_t fire_at = idle;
  for (const detail::BpatShape& g : shapes_) {
    const auto run = [&](auto& structure) {
      if (!structure.allocated()) {
        if (w.begin == w.end) return;
        structure.allocate(g);
      }
      fire_at = std::min(
          fire_at, structure.advance(g, closed.panes.data() + w.begin, closed.partials.data() + w.begin,
                                     w.end - w.begin, w.frontier, dirty,
                                     [&](std::int64_t win, const typename A::Acc& acc) {
                                       const std::int64_t start = win * g.slide;
                                       if (!representable<A>(acc)) [[unlikely]]
                                         throw_unrepresentable_window(A::name, overflow_message<A>(), g.spec,
                                                                      k.key, start, start + g.length);
                                       results.push(g.spec, k.key, start, start + g.length, A::lower(acc));
                                     }));
    };
    if (g.stage == WindowStageKind::scan)
      run(k.scans[g.slot]);
    else
      run(k.trees[g.slot]);
  }
  k.fire_at = fire_at;
}

template <StreamAggregate A>
template <class F>
std::size_t CpuWindowStage<A>::in_threads(int parts, Results& out, F&& f,
                                          const std::vector<std::size_t>* bounds) {
  const std::size_t at = out.size();
  if (parts == 1) {
    if (bounds != nullptr) out.reserve(at + bounds->front());
    {
      detail::ColumnAppender<Output> results(out, at, true);
      f(0, results);
    }
    return out.size() - at;
  }
  const auto count = static_cast<std::size_t>(parts);
  // Where each thread's rows start: in `out` (its region, given bounds) or in its buffer.
  std::vector<std::size_t> first(count + 1, at);
  if (bounds != nullptr) {
    for (std::size_t t = 0; t < count; ++t) first[t + 1] = first[t] + (*bounds)[t];
    out.resize(first[count]);
  } else {
    thread_out_.resize(count);
  }
  thread_rows_.assign(count, 0);
  std::exception_ptr error;
#pragma omp parallel num_threads(parts)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    try {
      if (bounds != nullptr) {
        detail::ColumnAppender<Output> results(out, {first[t], first[t + 1]});
        f(static_cast<int>(t), results);
        thread_rows_[t] = results.size() - first[t];
      } else {
        detail::ColumnAppender<Output> results(thread_out_[t], 0, false);
        f(static_cast<int>(t), results);
        thread_rows_[t] = results.size();
      }
    } catch (...) {
#pragma omp critical(sextant_stream_window_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) {
    out.resize(at);
    std::rethrow_exception(error);
  }
  std::size_t total = 0;
  for (const std::size_t r : thread_rows_) total += r;
  if (bounds != nullptr) {
    // Each region's rows move down to follow the one before, in order (they may overlap).
    for (std::size_t t = 0, to = at; t < count; to += thread_rows_[t++])
      if (to != first[t]) out.copy_rows(to, out, first[t], thread_rows_[t]);
    out.resize(at + total);
    return total;
  }
  // The threads' buffers join `out`, each thread copying its own.
  out.resize(at + total);
  for (std::size_t t = 0; t < count; ++t) first[t + 1] = first[t] + thread_rows_[t];
  const int copiers = total >= policy::stream_parallel_copy_rows ? parts : 1;
#pragma omp parallel for num_threads(copiers) schedule(static, 1)
  for (std::size_t t = 0; t < count; ++t) out.copy_rows(first[t], thread_out_[t], 0, thread_rows_[t]);
  return total;
}

template <StreamAggregate A>
void CpuWindowStage<A>::advance_dense(const CpuClosedPanes<A>& closed, Results& out) {
  if (dense_.empty())
    for (const detail::BpatShape& g : shapes_) dense_.emplace_back(g);
  const std::uint32_t keys = closed.dense_keys;
  for (auto& d : dense_) d.reserve_keys(keys, threads_);
  // Ranges of whole cache lines of partials; one thread below a few thousand keys.
  constexpr std::uint32_t grain = 4096;
  const int parts =
      static_cast<int>(std::clamp<std::uint32_t>(keys / grain, 1, static_cast<std::uint32_t>(threads_)));
  const auto range = [&](int t) {
    const auto bound = [&](int i) {
      return static_cast<std::uint32_t>((static_cast<std::uint64_t>(keys) * static_cast<std::uint64_t>(i) /
                                         static_cast<std::uint64_t>(parts)) &
                                        ~std::uint64_t{15});
    };
    return std::pair{bound(t), t + 1 == parts ? keys : bound(t + 1)};
  };
  // A key range fires each of its keys at most once per window that the rows complete: the
  // control alone (no keys) counts those windows. While every key fires (the last advance met
  // these bounds), the threads write straight into `out`, sparing a copy of every row; otherwise
  // into their buffers, as closing up the gaps would cost that copy on one thread. Windows that
  // end in panes after the last with a tuple (the stream's end) fire only the keys of their
  // earlier panes: buffers then too. One thread reserves its bound. Either only while the bound
  // is no more rows than the scan's blocks hold cells: a long walk of a few live keys must not
  // size the results for every key.
  std::uint64_t windows = 0, trailing = 0, room = 0;
  for (std::size_t i = 0; i < dense_.size(); ++i) {
    const auto& c = dense_[i].control();
    const auto after = dense_[i].run(c, closed.rows, closed, closed.frontier, 0, 0,
                                     [](std::uint32_t, std::int64_t, const typename A::Acc&) {});
    windows += after.windows - c.windows;
    trailing += after.trailing - c.trailing;
    room += 2 * static_cast<std::uint64_t>(shapes_[i].w) * keys;
  }
  dense_bounds_.resize(static_cast<std::size_t>(parts));
  std::size_t bound = 0;
  for (int t = 0; t < parts; ++t) {
    const auto [k0, k1] = range(t);
    dense_bounds_[static_cast<std::size_t>(t)] = static_cast<std::size_t>(windows * (k1 - k0));
    bound += dense_bounds_[static_cast<std::size_t>(t)];
  }
  const bool direct = bound <= room && (parts == 1 || (dense_direct_ && trailing == 0));
  std::vector<typename detail::DenseScan<A>::Control> next(dense_.size());
  const auto run = [&](int t, detail::ColumnAppender<Output>& results) {
    const auto [k0, k1] = range(t);
    for (std::size_t i = 0; i < dense_.size(); ++i) {
      const detail::BpatShape& g = shapes_[i];
      const auto c = dense_[i].run(dense_[i].control(), closed.rows, closed, closed.frontier, k0, k1,
                                   [&](std::uint32_t id, std::int64_t win, const typename A::Acc& acc) {
                                     const std::int64_t start = win * g.slide;
                                     const StreamKey key = closed.key_of_id[id];
                                     if (!representable<A>(acc)) [[unlikely]]
                                       throw_unrepresentable_window(A::name, overflow_message<A>(), g.spec,
                                                                    key, start, start + g.length);
                                     results.push(g.spec, key, start, start + g.length, A::lower(acc));
                                   });
      if (t == 0) next[i] = c;
    }
  };
  dense_direct_ = in_threads(parts, out, run, direct ? &dense_bounds_ : nullptr) == bound;
  for (std::size_t i = 0; i < dense_.size(); ++i) dense_[i].commit(next[i]);
}

template <StreamAggregate A>
void CpuWindowStage<A>::advance(const CpuClosedPanes<A>& closed, Results& out) {
  if (closed.dense) {
    advance_dense(closed, out);
    return;
  }
  ++stamp_;
  work_.clear();
  for (const auto& r : closed.keys) {
    if (r.id >= keys_.size()) keys_.resize(static_cast<std::size_t>(r.id) + 1);
    keys_[r.id].key = r.key;
    keys_[r.id].stamp = stamp_;
    work_.push_back({r.id, r.begin, r.end, closed.count_windows ? r.frontier : closed.frontier});
  }
  // Time windows: the keys whose next window the frontier completes (count windows: a key's
  // frontier moves only with its own panes). A key's fire_at never decreases, so an entry
  // below it is stale.
  if (!closed.count_windows) {
    while (!due_.empty() && due_.top().first <= closed.frontier) {
      const auto [at, id] = due_.top();
      due_.pop();
      KeyTrees& k = keys_[id];
      if (k.queued_at == at) k.queued_at = idle;
      if (k.fire_at != at || k.stamp == stamp_) continue;
      k.stamp = stamp_;
      work_.push_back({id, 0, 0, closed.frontier});
    }
  }
  if (work_.empty()) return;

  const std::size_t n = work_.size();
  const bool parallel =
      n >= parallel_keys || (n >= parallel_min_keys && closed.panes.size() >= parallel_panes);
  const int parts = parallel ? threads_ : 1;
  thread_dirty_.resize(static_cast<std::size_t>(parts));
  // Threads take chunks of consecutive keys (a few per thread at least); each prefetches within
  // its own chunk.
  const std::size_t chunk = std::clamp<std::size_t>(n / (4 * static_cast<std::size_t>(parts)), 1, 64);
  std::atomic<std::size_t> next{0};
  in_threads(parts, out, [&](int t, detail::ColumnAppender<Output>& results) {
    auto& dirty = thread_dirty_[static_cast<std::size_t>(t)];
    if (parts == 1) {
      for (std::size_t i = 0; i < n; ++i) {
        prefetch_ahead(i, n);
        process(work_[i], closed, results, dirty);
      }
      return;
    }
    for (std::size_t begin = next.fetch_add(chunk); begin < n; begin = next.fetch_add(chunk)) {
      const std::size_t end = std::min(begin + chunk, n);
      for (std::size_t i = begin; i < end; ++i) {
        prefetch_ahead(i, end);
        process(work_[i], closed, results, dirty);
      }
    }
  });

  if (closed.count_windows) return;
  for (const Work& w : work_) {
    KeyTrees& k = keys_[w.id];
    if (k.fire_at != idle && k.fire_at != k.queued_at) {
      k.queued_at = k.fire_at;
      due_.push({k.fire_at, w.id});
    }
  }
}

}  // namespace sextant::window
