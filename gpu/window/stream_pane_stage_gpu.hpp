// Internal: the control flow of the GPU pane stage, written once over an executor `Exec` (the
// CUDA one in stream_gpu_exec.cuh, or the sequential host emulation of the tests). It satisfies
// PaneStageHook itself; GpuPaneStage is a CUDA-free wrapper around PaneCore<A, DeviceExec>.
//
// State in exec memory: the key table (uint32 key -> dense slot), and
//   time windows: the pending panes, unique packed keys (pane - base) << slot_bits | slot sorted
//     ascending, with their partials. Only panes that received a tuple exist, so sparse time
//     costs nothing; the closed panes are a prefix (pane < frontier). base is the last frontier,
//     which keeps the packed keys, and so the radix sort, narrow.
//   count windows: per slot, its tuple count and its open (not yet full) pane; the panes that
//     filled up since the last release.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "gpu/window/stream_gpu_items.hpp"
#include "gpu/window/stream_window_gpu.hpp"

namespace sextant::window::detail::stream_gpu {

// A batch as the executor's upload sees it: host pointers, null for a column that stays home.
struct HostColumns {
  const u32* keys = nullptr;
  const i64* ts = nullptr;
  const void* values = nullptr;
  std::size_t value_bytes = 0;
  const i64* wms = nullptr;
  std::size_t n = 0;
};

// One chunk of it in exec memory.
struct ChunkColumns {
  const u32* keys = nullptr;
  const i64* ts = nullptr;
  void* values = nullptr;  // may be overwritten (it is the first buffer of the sort)
  const i64* wms = nullptr;
  std::size_t n = 0;
};

template <StreamAggregate A, class Exec>
class PaneCore {
 public:
  static constexpr std::string_view name = "gpu-pls";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  using ClosedPanes = GpuClosedPanes<A>;
  using V = typename A::Input;
  using P = Partial<A>;

  PaneCore(const StreamGeometry& geometry, const GpuStreamBackend::Config& config)
      : exec_(config.device),
        geometry_(geometry),
        count_(geometry.type == WindowType::count),
        max_batch_(std::max<std::size_t>(config.max_batch, 1)) {
    if (config.max_batch == 0 || config.max_batch > (std::size_t{1} << 31))
      throw Error::argument("max_batch", std::to_string(config.max_batch), "1 .. 2^31 tuples");
    scalars_.reserve(exec_, 1);
    exec_.for_each(1, Fill<Scalars>{scalars_.data(), Scalars{}});
    grow_keys(1, false);
  }

  void push(const StreamBatch<V>& batch) {
    const std::size_t n = batch.size();
    check_columns(batch);
    if (n == 0) return;
    HostColumns cols;
    cols.keys = batch.keys.empty() ? nullptr : batch.keys.data();
    cols.ts = batch.timestamps.empty() ? nullptr : batch.timestamps.data();
    if constexpr (reads_values<A>) {
      cols.values = batch.values.data();
      cols.value_bytes = sizeof(V);
    }
    cols.wms = batch.watermarks.empty() ? nullptr : batch.watermarks.data();
    cols.n = n;
    if (count_) closed_count_ = closed_handed_ ? 0 : closed_count_;
    closed_handed_ = false;

    // Large pushes are cut in at least a few chunks of >= 2^20 tuples, so that copies overlap
    // the aggregation of the previous chunk even when a push fits one max_batch.
    const std::size_t chunk = std::min(max_batch_, std::max<std::size_t>((n + 3) / 4, std::size_t{1} << 20));
    const std::size_t chunks = (n + chunk - 1) / chunk;
    // A bad tuple in a later chunk must leave the stage as it was: keep what the earlier
    // chunks change. One chunk checks everything before it changes anything.
    if (chunks > 1) take_snapshot();
    ChunkColumns up[2];
    try {
      up[0] = exec_.upload(cols, 0, std::min(n, chunk), 0);
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = c * chunk;
        if (c + 1 < chunks) {
          const std::size_t next = first + chunk;
          up[(c + 1) % 2] =
              exec_.upload(cols, next, std::min(n - next, chunk), static_cast<int>((c + 1) % 2));
        }
        exec_.begin_chunk(static_cast<int>(c % 2));
        process_chunk(up[c % 2], first);
        exec_.end_chunk(static_cast<int>(c % 2));
      }
    } catch (...) {
      exec_.drain();  // no copy may still read the caller's batch
      if (chunks > 1) restore_snapshot();
      throw;
    }
  }

  void release(ClosedPanes& closed) {
    if (count_)
      release_count(closed);
    else
      release_time(closed, false);
  }
  void release_all(ClosedPanes& closed) {
    if (count_)
      release_count(closed);
    else
      release_time(closed, true);
  }

  // The host keeps the operator's watermark: the next chunk's kernels and release_time read it.
  void advance_watermark(std::int64_t wm) {
    if (wm >= wm_)
      wm_ = wm;
    else if (wm != no_watermark)
      ++counters_.watermarks_ignored;
  }
  std::int64_t watermark() const { return wm_; }
  StreamCounters counters() const { return counters_; }

 private:
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

  void check_columns(const StreamBatch<V>& b) const {
    const std::size_t n = b.size();
    const auto bad = [n](const char* column, std::size_t size) {
      return Error::argument(column, std::to_string(size) + " entries",
                             std::to_string(n) + " (one per value)", "batch columns differ in length");
    };
    if (!b.keys.empty() && b.keys.size() != n) throw bad("keys", b.keys.size());
    if (!b.watermarks.empty() && b.watermarks.size() != n) throw bad("watermarks", b.watermarks.size());
    // Count windows ignore timestamps: they may be left out, but are checked when given.
    if (b.timestamps.size() != n && !(count_ && b.timestamps.empty()))
      throw bad("timestamps", b.timestamps.size());
  }

  Scalars read_scalars() {
    Scalars s;
    exec_.read(&s, scalars_.data(), 1);
    return s;
  }
  template <class T>
  T read_one(const T* p) {
    T v{};
    exec_.read(&v, p, 1);
    return v;
  }

  // ---- keys -> slots ----

  // Room for `needed` slots (a power of two, so slot_bits stay tight) in a table at most a
  // quarter full. Rebuilding rehashes every published entry, which also writes the keys of
  // slots handed out beyond the old capacity.
  void grow_keys(std::uint64_t needed, bool table_full) {
    const u32 old_slots = slot_capacity_;
    const int old_bits = slot_bits_;
    const u64 slot_cap = std::max<u64>(std::bit_ceil(std::max<u64>(needed, 1)), slot_capacity_);
    if (slot_cap > (u64{1} << 31)) throw Error::unsupported("more than 2^31 distinct keys in one stream");
    u64 table_cap = std::max<u64>({64, table_capacity_, std::bit_ceil(4 * slot_cap)});
    if (table_full && table_cap == table_capacity_) table_cap *= 2;
    if (table_cap == table_capacity_ && slot_cap == slot_capacity_) return;
    Buffer<u64> entries;
    Buffer<u32> slot_key;
    entries.reserve(exec_, table_cap);
    slot_key.reserve(exec_, slot_cap);
    exec_.for_each(table_cap, Fill<u64>{entries.data(), table_empty});
    KeyTable t = table(entries.data(), table_cap, static_cast<u32>(slot_cap));
    t.slot_key = slot_key.data();
    if (table_capacity_ > 0) exec_.for_each(table_capacity_, Rehash{table_.data(), t});
    exec_.sync();
    std::swap(table_, entries);
    std::swap(slot_key_, slot_key);
    table_capacity_ = table_cap;
    slot_capacity_ = static_cast<u32>(slot_cap);
    slot_bits_ = static_cast<int>(std::bit_width(slot_cap - 1));
    if (count_) {
      slot_tuples_.grow_keep(exec_, old_slots, slot_cap, i64{0});
      open_.grow_keep(exec_, old_slots, slot_cap, P::identity());
    } else if (slot_bits_ != old_bits && pending() > 0) {
      exec_.for_each(pending_, Repack{pending_keys_[cur_].data() + head_, old_bits, slot_bits_, 0});
    }
  }

  KeyTable table(u64* entries, u64 capacity, u32 slot_cap) {
    KeyTable t;
    t.entries = entries;
    t.mask = capacity == 0 ? 0 : capacity - 1;
    t.slot_key = slot_key_.data();
    t.slot_capacity = slot_cap;
    t.slots = &scalars_.data()->slots;
    return t;
  }

  // ---- one chunk ----

  void process_chunk(const ChunkColumns& c, std::size_t first) {
    const std::size_t n = c.n;
    if (c.wms != nullptr) {
      wm_before_.reserve(exec_, n);
      exec_.max_scan(c.wms, wm_before_.data(), n, wm_);
    }
    if (count_)
      slots_[0].reserve(exec_, n);
    else
      sort_keys_[0].reserve(exec_, n);
    Scalars s;
    for (;;) {
      exec_.for_each(1, Fill<PrepareStats>{&scalars_.data()->stats, PrepareStats{}});
      PrepareArgs a;
      a.count_windows = count_;
      a.keys = c.keys;
      a.ts = c.ts;
      a.wms = c.wms;
      a.wm_before = c.wms != nullptr ? wm_before_.data() : nullptr;
      a.wm = wm_;
      a.lateness = geometry_.lateness;
      a.max_ts = geometry_.max_timestamp;
      a.pane = geometry_.pane;
      a.base = base_;
      a.slot_bits = slot_bits_;
      a.table = table(table_.data(), table_capacity_, slot_capacity_);
      a.sort_keys = count_ ? nullptr : sort_keys_[0].data();
      a.slots = count_ ? slots_[0].data() : nullptr;
      exec_.prepare(a, n, &scalars_.data()->stats);
      s = read_scalars();
      const bool full = s.stats.overflow != 0 && s.slots <= slot_capacity_;
      if (s.stats.overflow != 0 || s.slots > slot_capacity_) {
        grow_keys(s.slots, full);
        continue;  // the same chunk again: found keys stay, counts are recomputed
      }
      if (u64{s.slots} * 2 > table_capacity_) grow_keys(s.slots, false);
      break;
    }
    slots_in_use_ = s.slots;
    if (s.stats.first_negative != no_index) {
      const std::size_t i = first + s.stats.first_negative;
      throw Error(ErrorKind::bad_input,
                  "tuple " + std::to_string(i) + " of the batch has a negative timestamp (" +
                      read_timestamp(c, s.stats.first_negative) + "); timestamps must be >= 0");
    }
    if (s.stats.first_above != no_index) {
      const u64 i = s.stats.first_above;
      throw_timestamp_above("stream batch: tuple " + std::to_string(first + i), read_one(c.ts + i),
                            geometry_.max_timestamp);
    }
    if (s.stats.first_far != no_index)
      throw Error::unsupported("tuple " + std::to_string(first + s.stats.first_far) +
                               " of the batch: its timestamp lies more than 2^" +
                               std::to_string(63 - slot_bits_) +
                               " panes beyond the watermark, which the GPU pane stage cannot pack");
    if (count_)
      count_chunk(c, n);
    else if (s.stats.accepted != 0)
      time_chunk(c, n - s.stats.late, s.stats.max_key);
    wm_ = std::max<i64>(wm_, s.stats.max_wm);
    counters_.tuples_in += n;
    counters_.late_dropped += s.stats.late;
    counters_.watermarks_ignored += s.stats.ignored;
  }

  // Pending panes, read from the device when a merge left the count there.
  std::size_t pending() {
    if (!pending_known_) {
      pending_ = read_one(&scalars_.data()->pending);
      pending_known_ = true;
    }
    return pending_;
  }

  std::string read_timestamp(const ChunkColumns& c, u64 i) { return std::to_string(read_one(c.ts + i)); }

  // What the sorts carry beside the keys: the values as raw bits (4 or 8 bytes; none for count),
  // or, for an aggregate that lifts with the timestamp, each tuple's index in the chunk.
  static constexpr bool sorts_order = ContextLift<A>;
  static constexpr std::size_t payload_bytes = sorts_order ? sizeof(u32) : reads_values<A> ? sizeof(V) : 0;

  // The sort's two payload buffers; the first holds the payload in chunk order.
  void payload(const ChunkColumns& c, void* out[2]) {
    const std::size_t n = c.n;
    if constexpr (sorts_order) {
      order_[0].reserve(exec_, n);
      order_[1].reserve(exec_, n);
      exec_.for_each(n, Iota{order_[0].data()});
      out[0] = order_[0].data();
      out[1] = order_[1].data();
    } else if constexpr (reads_values<A>) {
      sort_values_.reserve(exec_, n * sizeof(V));
      out[0] = c.values;
      out[1] = sort_values_.data();
    } else {
      out[0] = out[1] = nullptr;
    }
  }

  // run_keys_ / run_parts_ from the first n sorted keys and their payload.
  void reduce_runs(const u64* keys, const void* payload, const ChunkColumns& c, std::size_t n) {
    if constexpr (sorts_order)
      exec_.template reduce_by_key_at<A>(keys, static_cast<const u32*>(payload),
                                         static_cast<const V*>(c.values), c.ts, n, run_keys_.data(),
                                         run_parts_.data(), &scalars_.data()->runs);
    else
      exec_.template reduce_by_key<A>(keys, static_cast<const V*>(payload), n, run_keys_.data(),
                                      run_parts_.data(), &scalars_.data()->runs);
  }

  void time_chunk(const ChunkColumns& c, std::size_t accepted, u64 max_key) {
    const std::size_t n = c.n;
    sort_keys_[1].reserve(exec_, n);
    u64* keys[2] = {sort_keys_[0].data(), sort_keys_[1].data()};
    void* values[2];
    payload(c, values);
    const int end_bit = bit_width64(max_key + 1);  // late_key's low bits sort after every kept key
    const int sel = exec_.sort_pairs(keys, values, payload_bytes, n, end_bit);
    run_keys_.reserve(exec_, accepted);
    run_parts_.reserve(exec_, accepted);
    reduce_runs(keys[sel], values[sel], c, accepted);
    // The runs are distinct packed keys <= max_key: with many tuples per pane far fewer than the
    // tuples, and the merge is launched over this bound.
    merge_pending(std::min<std::size_t>(accepted, max_key + 1));
  }

  // Merges the reduce-by-key's runs (their count, at most `bound`, stays on the device) into the
  // pending panes. The merged count stays there too until the host needs it: release reads it
  // with the released count, one synchronisation for both.
  void merge_pending(std::size_t bound) {
    const std::size_t na = pending();
    const u64* nb = &scalars_.data()->runs;
    if (na == 0) {
      std::swap(pending_keys_[cur_], run_keys_);
      std::swap(pending_parts_[cur_], run_parts_);
      exec_.for_each(1, CopyCount{nb, &scalars_.data()->pending});
      head_ = 0;
      pending_known_ = false;
      return;
    }
    const std::size_t m = na + bound;
    merged_keys_.reserve(exec_, m);
    merged_parts_.reserve(exec_, m);
    heads_.reserve(exec_, m);
    rank_.reserve(exec_, m);
    const int next = 1 - cur_;
    pending_keys_[next].reserve(exec_, m);
    pending_parts_[next].reserve(exec_, m);
    exec_.for_each(m, MergeRanked<A>{pending_keys_[cur_].data() + head_, pending_parts_[cur_].data() + head_,
                                     na, run_keys_.data(), run_parts_.data(), nb, merged_keys_.data(),
                                     merged_parts_.data()});
    exec_.for_each(m, RunHeads{merged_keys_.data(), na, nb, heads_.data()});
    exec_.inclusive_sum(heads_.data(), rank_.data(), m);
    exec_.for_each(m, CombineRuns<A>{merged_keys_.data(), merged_parts_.data(), heads_.data(), rank_.data(),
                                     na, nb, pending_keys_[next].data(), pending_parts_[next].data()});
    exec_.for_each(1, StoreLast{rank_.data(), na, nb, &scalars_.data()->pending});
    pending_known_ = false;
    cur_ = next;
    head_ = 0;
  }

  void count_chunk(const ChunkColumns& c, std::size_t n) {
    const int bits = static_cast<int>(std::bit_width(u64{slots_in_use_} - 1));
    const u32* slots = slots_[0].data();
    void* vals[2];
    payload(c, vals);
    const void* values = vals[0];
    const u32* segment = nullptr;
    if (slots_in_use_ > 1) {
      slots_[1].reserve(exec_, n);
      u32* keys[2] = {slots_[0].data(), slots_[1].data()};
      const int sel = exec_.sort_pairs(keys, vals, payload_bytes, n, bits);
      slots = keys[sel];
      values = vals[sel];
      seg_start_.reserve(exec_, n);
      exec_.segment_starts(slots, seg_start_.data(), n);
      segment = seg_start_.data();
    }
    sort_keys_[0].reserve(exec_, n);
    exec_.for_each(n, CountRunKey{slots, segment, slot_tuples_.data(), geometry_.pane, sort_keys_[0].data()});
    run_keys_.reserve(exec_, n);
    run_parts_.reserve(exec_, n);
    reduce_runs(sort_keys_[0].data(), values, c, n);
    const std::size_t runs = read_one(&scalars_.data()->runs);
    run_pane_.reserve(exec_, runs);
    full_.reserve(exec_, runs);
    rank_.reserve(exec_, runs);
    exec_.for_each(runs, CountMergeRuns<A>{run_keys_.data(), run_parts_.data(), slot_tuples_.data(),
                                           open_.data(), geometry_.pane, run_pane_.data(), full_.data()});
    exec_.for_each(runs, CountCommit<A>{run_keys_.data(), run_parts_.data(), run_pane_.data(), runs,
                                        geometry_.pane, slot_tuples_.data(), open_.data()});
    exec_.inclusive_sum(full_.data(), rank_.data(), runs);
    const std::size_t filled = read_one(rank_.data() + (runs - 1));
    if (filled == 0) return;
    const std::size_t total = closed_count_ + filled;
    rel_slot_.grow_keep(exec_, closed_count_, total, 0u);
    rel_pane_.grow_keep(exec_, closed_count_, total, i64{0});
    rel_parts_.grow_keep(exec_, closed_count_, total, P::identity());
    exec_.for_each(runs, CountAppendClosed<A>{run_keys_.data(), run_parts_.data(), run_pane_.data(),
                                              full_.data(), rank_.data(), closed_count_, rel_slot_.data(),
                                              rel_pane_.data(), rel_parts_.data()});
    closed_count_ = total;
  }

  // ---- release ----

  void release_time(ClosedPanes& closed, bool final) {
    const i64 frontier = final ? no_limit : geometry_.closed_panes(wm_);
    std::size_t released = 0;
    u64 delta = 0;
    if (!final && frontier > base_) delta = static_cast<u64>(frontier - base_);
    const u64 room = u64{1} << (63 - slot_bits_);
    if (!pending_known_ && !final && delta > 0 && delta < room) {
      Scalars* s = scalars_.data();
      exec_.for_each(1, CountBelowPending{pending_keys_[cur_].data() + head_, &s->pending,
                                          delta << slot_bits_, &s->count});
      const Scalars both = read_scalars();
      pending_ = both.pending;
      pending_known_ = true;
      released = both.count;
    } else if ((final || delta > 0) && pending() > 0) {  // else nothing closes: no need to know
      if (final || delta >= room) {
        released = pending_;
      } else if (delta > 0) {
        exec_.for_each(1, CountBelow{pending_keys_[cur_].data() + head_, pending_, delta << slot_bits_,
                                     &scalars_.data()->count});
        released = read_one(&scalars_.data()->count);
      }
    }
    if (pending_ > 0) {
      if (released > 0 || delta > 0) {
        rel_slot_.reserve(exec_, released);
        rel_pane_.reserve(exec_, released);
        rel_parts_.reserve(exec_, released);
        exec_.for_each(pending_, ReleaseUnpack<A>{pending_keys_[cur_].data() + head_,
                                                  pending_parts_[cur_].data() + head_, released, slot_bits_,
                                                  base_, released == pending_ ? 0 : delta, rel_slot_.data(),
                                                  rel_pane_.data(), rel_parts_.data()});
      }
    }
    head_ += released;
    pending_ -= released;
    if (delta > 0) base_ = frontier;
    // The window stage runs on its own stream: it may read the released panes once they are
    // there. When nothing closed, it reads nothing, and this push's work may still be running.
    if (final || delta > 0) exec_.sync();
    closed = ClosedPanes{};
    closed.slot = rel_slot_.data();
    closed.pane = rel_pane_.data();
    closed.partial = rel_parts_.data();
    closed.count = released;
    closed.frontier = frontier;
    closed.slot_key = slot_key_.data();
    closed.slots = slots_in_use_;
  }

  void release_count(ClosedPanes& closed) {
    exec_.sync();
    closed = ClosedPanes{};
    closed.slot = rel_slot_.data();
    closed.pane = rel_pane_.data();
    closed.partial = rel_parts_.data();
    closed.count = closed_handed_ ? 0 : closed_count_;
    closed.slot_tuples = slot_tuples_.data();
    closed.slot_key = slot_key_.data();
    closed.slots = slots_in_use_;
    closed_handed_ = true;
  }

  // ---- multi-chunk pushes ----

  void take_snapshot() {
    snap_.wm = wm_;
    snap_.counters = counters_;
    snap_.pending = pending();
    snap_.base = base_;
    snap_.slot_bits = slot_bits_;
    snap_.slots = slots_in_use_;
    snap_.closed_count = closed_count_;
    if (count_) {
      snap_.tuples.reserve(exec_, slots_in_use_);
      snap_.open.reserve(exec_, slots_in_use_);
      exec_.copy(snap_.tuples.data(), slot_tuples_.data(), slots_in_use_);
      exec_.copy(snap_.open.data(), open_.data(), slots_in_use_);
    } else {
      snap_.keys.reserve(exec_, pending_);
      snap_.parts.reserve(exec_, pending_);
      exec_.copy(snap_.keys.data(), pending_keys_[cur_].data() + head_, pending_);
      exec_.copy(snap_.parts.data(), pending_parts_[cur_].data() + head_, pending_);
    }
  }

  void restore_snapshot() {
    wm_ = snap_.wm;
    counters_ = snap_.counters;
    closed_count_ = snap_.closed_count;
    if (count_) {
      exec_.copy(slot_tuples_.data(), snap_.tuples.data(), snap_.slots);
      exec_.copy(open_.data(), snap_.open.data(), snap_.slots);
      // Slots created since keep their keys but had no tuple before this push.
      if (slots_in_use_ > snap_.slots) {
        const std::size_t extra = slots_in_use_ - snap_.slots;
        exec_.for_each(extra, Fill<i64>{slot_tuples_.data() + snap_.slots, 0});
        exec_.for_each(extra, Fill<P>{open_.data() + snap_.slots, P::identity()});
      }
    } else {
      pending_keys_[cur_].reserve(exec_, snap_.pending);
      pending_parts_[cur_].reserve(exec_, snap_.pending);
      exec_.copy(pending_keys_[cur_].data(), snap_.keys.data(), snap_.pending);
      exec_.copy(pending_parts_[cur_].data(), snap_.parts.data(), snap_.pending);
      head_ = 0;
      pending_ = snap_.pending;
      pending_known_ = true;
      base_ = snap_.base;
      if (snap_.slot_bits != slot_bits_ && pending_ > 0)
        exec_.for_each(pending_, Repack{pending_keys_[cur_].data(), snap_.slot_bits, slot_bits_, 0});
    }
    exec_.sync();
  }

  Exec exec_;
  StreamGeometry geometry_;
  bool count_;
  std::size_t max_batch_;
  i64 wm_ = no_wm;
  StreamCounters counters_{};
  Buffer<Scalars> scalars_;

  // keys
  Buffer<u64> table_;
  u64 table_capacity_ = 0;
  Buffer<u32> slot_key_;
  u32 slot_capacity_ = 0;
  int slot_bits_ = 0;
  u32 slots_in_use_ = 0;

  // chunk scratch
  Buffer<i64> wm_before_;
  Buffer<u64> sort_keys_[2];
  Buffer<unsigned char> sort_values_;
  Buffer<u32> order_[2];  // sorts_order: tuple indices
  Buffer<u32> slots_[2];
  Buffer<u32> seg_start_;
  Buffer<u64> run_keys_;
  Buffer<P> run_parts_;
  Buffer<u64> merged_keys_;
  Buffer<P> merged_parts_;
  Buffer<u32> heads_;
  Buffer<u32> rank_;

  // time windows: pending panes [head_, head_ + pending_) of buffer cur_
  Buffer<u64> pending_keys_[2];
  Buffer<P> pending_parts_[2];
  int cur_ = 0;
  std::size_t head_ = 0;
  std::size_t pending_ = 0;  // exact when pending_known_, else in scalars_->pending
  bool pending_known_ = true;
  i64 base_ = 0;

  // count windows
  Buffer<i64> slot_tuples_;
  Buffer<P> open_;
  Buffer<i64> run_pane_;
  Buffer<u32> full_;
  std::size_t closed_count_ = 0;
  bool closed_handed_ = false;

  // released (time) or filled (count) panes, handed to the window stage
  Buffer<u32> rel_slot_;
  Buffer<i64> rel_pane_;
  Buffer<P> rel_parts_;

  struct Snapshot {
    i64 wm = no_wm;
    StreamCounters counters{};
    std::size_t pending = 0;
    i64 base = 0;
    int slot_bits = 0;
    u32 slots = 0;
    std::size_t closed_count = 0;
    Buffer<u64> keys;
    Buffer<P> parts;
    Buffer<i64> tuples;
    Buffer<P> open;
  } snap_;
};

}  // namespace sextant::window::detail::stream_gpu
