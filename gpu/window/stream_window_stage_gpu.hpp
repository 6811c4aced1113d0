// Internal: the control flow of the GPU window stage over an executor (see stream_pane_stage_gpu.hpp).
//
// Per round (one release of the pane stage): the leaves are the closed panes of the round plus
// the carry, the earlier panes that a window not yet fired still needs, all sorted by (slot,
// pane) so that a key's panes are contiguous; only non-empty panes exist. A flat B-PAT is built
// over the leaves (levels contiguous, none above floor(log2 w)); a window is a contiguous leaf
// range within its key, found by binary search, and costs O(log w) combines.
// Every window that fires in the round is counted per leaf (each window belongs to its first
// non-empty pane), the counts are scanned, and one thread computes each window. The leaves that
// a later window still needs become the next carry.
#pragma once

#include <algorithm>
#include <bit>
#include <vector>

#include "gpu/window/stream_gpu_items.hpp"
#include "gpu/window/stream_window_gpu.hpp"

namespace sextant::window::detail::stream_gpu {

template <StreamAggregate A, class Exec>
class WindowCore {
 public:
  static constexpr std::string_view name = "gpu-bpat";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  using P = Partial<A>;
  using Output = typename A::Output;
  using Results = WindowColumns<Output>;
  using Value = typename Results::Value;

  // Windows computed and copied back per slice (bounds the result buffers).
  static constexpr std::size_t result_slice = std::size_t{1} << 20;

  WindowCore(const StreamGeometry& geometry, const GpuStreamBackend::Config& config)
      : exec_(config.device), geometry_(geometry), count_(geometry.type == WindowType::count) {
    if (geometry.window_stage == WindowStageKind::scan || geometry.window_stage == WindowStageKind::dense)
      throw Error::unsupported("window stage " + std::string(to_string(geometry.window_stage)) +
                               " on the GPU (the GPU runs its B-PAT): use auto or bpat");
    for (std::size_t i = 0; i < geometry.specs.size(); ++i) {
      const SpecGeometry& g = geometry.specs[i];
      SpecPanes s;
      s.index = static_cast<u32>(i);
      s.w = g.panes_per_window;
      s.s = g.panes_per_slide;
      s.length = g.spec.length;
      s.slide = g.spec.slide;
      specs_.push_back(s);
      levels_ = std::max(levels_, g.tree_levels);
    }
    if (levels_ > max_tree_levels) throw Error::unsupported("windows wider than 2^47 panes on the GPU");
  }

  void advance(const GpuClosedPanes<A>& closed, Results& out) {
    const std::size_t fresh = closed.count;
    if (count_) {
      if (fresh == 0) return;
      slot_fired_.grow_keep(exec_, fired_slots_, closed.slots, i64{0});
      fired_slots_ = std::max<std::size_t>(fired_slots_, closed.slots);
    } else {
      if (closed.frontier <= fired_ || (fresh == 0 && carry_ == 0)) {
        fired_ = std::max(fired_, closed.frontier);
        return;
      }
    }
    const std::size_t n = build_leaves(closed);
    build_tree(n);
    Frontiers f;
    f.fired = fired_;
    f.frontier = closed.frontier;
    f.slot_fired = count_ ? slot_fired_.data() : nullptr;
    f.slot_tuples = count_ ? closed.slot_tuples : nullptr;
    f.pane = geometry_.pane;
    counts_.reserve(exec_, n);
    offsets_.reserve(exec_, n);
    keep_.reserve(exec_, n);
    rank_.reserve(exec_, n);
    u32 kept = 0;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const SpecPanes& g = specs_[i];
      exec_.for_each(
          n, CountOwned{leaf_slot_.data(), leaf_pane_.data(), g, f, counts_.data(), keep_.data(), i == 0});
      exec_.inclusive_sum(counts_.data(), offsets_.data(), n);
      u64 total = 0;
      if (i + 1 < specs_.size()) {
        exec_.read(&total, offsets_.data() + (n - 1), 1);
      } else {  // the last spec: the leaves to keep are known too, one synchronisation for both counts
        exec_.inclusive_sum(keep_.data(), rank_.data(), n);
        exec_.read(&total, offsets_.data() + (n - 1), 1, &kept, rank_.data() + (n - 1), 1);
      }
      emit(n, g, f, closed.slot_key, total, out);
    }
    keep_carry(n, kept);
    if (count_) {
      exec_.for_each(closed.slots, SlotFired{closed.slot_tuples, geometry_.pane, slot_fired_.data()});
      exec_.sync();  // it reads the pane stage's counts, which its next push changes
    } else {
      // The reads above saw every use of the pane stage's buffers complete; what is still queued
      // touches this stage's own, in stream order.
      fired_ = closed.frontier;
    }
  }

 private:
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

  // Leaves = carry merged with the round's panes, by (slot, pane). Returns their number.
  std::size_t build_leaves(const GpuClosedPanes<A>& closed) {
    std::size_t fresh = closed.count;
    const u32* slot = closed.slot;
    const i64* pane = closed.pane;
    const P* parts = closed.partial;
    // Within a slot the panes arrive ascending: a stable sort by slot orders them all.
    if (fresh > 1 && closed.slots > 1) {
      perm_[0].reserve(exec_, fresh);
      perm_[1].reserve(exec_, fresh);
      sort_slot_[0].reserve(exec_, fresh);
      sort_slot_[1].reserve(exec_, fresh);
      exec_.copy(sort_slot_[0].data(), closed.slot, fresh);
      exec_.for_each(fresh, Iota{perm_[0].data()});
      u32* keys[2] = {sort_slot_[0].data(), sort_slot_[1].data()};
      void* vals[2] = {perm_[0].data(), perm_[1].data()};
      const int sel = exec_.sort_pairs(keys, vals, sizeof(u32), fresh,
                                       static_cast<int>(std::bit_width(u64{closed.slots} - 1)));
      new_slot_.reserve(exec_, fresh);
      new_pane_.reserve(exec_, fresh);
      new_parts_.reserve(exec_, fresh);
      exec_.for_each(fresh,
                     GatherEntries<A>{static_cast<const u32*>(vals[sel]), closed.slot, closed.pane,
                                      closed.partial, new_slot_.data(), new_pane_.data(), new_parts_.data()});
      slot = new_slot_.data();
      pane = new_pane_.data();
      parts = new_parts_.data();
    }
    const std::size_t n = carry_ + fresh;
    leaf_slot_.reserve(exec_, n);
    leaf_pane_.reserve(exec_, n);
    tree_.reserve(exec_, tree_nodes(n));
    const int c = cur_;
    // One key: every carried pane precedes every new one.
    const bool appended = carry_ == 0 || fresh == 0 || closed.slots <= 1;
    exec_.for_each(
        n, MergeEntries<A>{carry_slot_[c].data(), carry_pane_[c].data(), carry_parts_[c].data(), carry_, slot,
                           pane, parts, fresh, leaf_slot_.data(), leaf_pane_.data(), tree_.data(), appended});
    return n;
  }

  std::size_t tree_nodes(std::size_t n) const {
    std::size_t total = 0;
    for (int l = 0; l < levels_; ++l) total += (n + (std::size_t{1} << l) - 1) >> l;
    return total;
  }

  void build_tree(std::size_t n) {
    tree_view_ = TreeView<A>{};
    tree_view_.nodes = tree_.data();
    tree_view_.levels = std::max(1, std::min(levels_, static_cast<int>(std::bit_width(n))));
    u64 offset = 0;
    for (int l = 0; l < tree_view_.levels; ++l) {
      tree_view_.offset[l] = offset;
      tree_view_.size[l] = (n + (u64{1} << l) - 1) >> l;
      offset += tree_view_.size[l];
    }
    exec_.build_tree(tree_view_);
  }

  void emit(std::size_t n, const SpecPanes& g, const Frontiers& f, const u32* slot_key, u64 total,
            Results& out) {
    if (total == 0) return;
    const std::size_t slice = std::min<u64>(total, result_slice);
    res_spec_.reserve(exec_, slice);
    res_key_.reserve(exec_, slice);
    res_start_.reserve(exec_, slice);
    res_end_.reserve(exec_, slice);
    res_value_.reserve(exec_, slice);
    if constexpr (Results::selected) res_at_.reserve(exec_, slice);
    const ResultColumnsView<Output> view{res_spec_.data(), res_key_.data(),   res_start_.data(),
                                         res_end_.data(),  res_value_.data(), res_at_.data()};
    unrepresentable_.reserve(exec_, 1);
    for (u64 first = 0; first < total; first += result_slice) {
      const std::size_t m = std::min<u64>(result_slice, total - first);
      exec_.for_each(1, Fill<u64>{unrepresentable_.data(), no_index});
      exec_.for_each(m, FillWindows<A>{leaf_slot_.data(), leaf_pane_.data(), n, offsets_.data(), tree_view_,
                                       g, f, slot_key, first, view, unrepresentable_.data()});
      const std::size_t old = out.size();
      out.resize(old + m);
      exec_.read_later(out.specs.data() + old, view.spec, m);
      exec_.read_later(out.keys.data() + old, view.key, m);
      exec_.read_later(out.starts.data() + old, view.start, m);
      exec_.read_later(out.ends.data() + old, view.end, m);
      if constexpr (Results::selected) exec_.read_later(out.times.data() + old, view.at, m);
      u64 bad = no_index;
      exec_.read(out.values.data() + old, view.value, m, &bad, unrepresentable_.data(), 1);
      if (bad != no_index) [[unlikely]] {
        const std::size_t r = old + bad;
        throw_unrepresentable_window(A::name, overflow_message<A>(), out.specs[r], out.keys[r], out.starts[r],
                                     out.ends[r]);
      }
    }
  }

  // The leaves a later window needs (`kept` of them, ranked in rank_) become the carry.
  void keep_carry(std::size_t n, u32 kept) {
    const int next = 1 - cur_;
    carry_slot_[next].reserve(exec_, kept);
    carry_pane_[next].reserve(exec_, kept);
    carry_parts_[next].reserve(exec_, kept);
    if (kept > 0)
      exec_.for_each(
          n, KeepEntries<A>{leaf_slot_.data(), leaf_pane_.data(), tree_.data(), keep_.data(), rank_.data(),
                            carry_slot_[next].data(), carry_pane_[next].data(), carry_parts_[next].data()});
    cur_ = next;
    carry_ = kept;
  }

  Exec exec_;
  StreamGeometry geometry_;
  bool count_;
  std::vector<SpecPanes> specs_;
  int levels_ = 1;
  i64 fired_ = 0;  // time windows: every window ending at or below this pane was emitted

  Buffer<u32> carry_slot_[2];
  Buffer<i64> carry_pane_[2];
  Buffer<P> carry_parts_[2];
  int cur_ = 0;
  std::size_t carry_ = 0;

  Buffer<i64> slot_fired_;  // count windows, per slot
  std::size_t fired_slots_ = 0;

  Buffer<u32> sort_slot_[2];
  Buffer<u32> perm_[2];
  Buffer<u32> new_slot_;
  Buffer<i64> new_pane_;
  Buffer<P> new_parts_;
  Buffer<u32> leaf_slot_;
  Buffer<i64> leaf_pane_;
  Buffer<P> tree_;  // level 0 = the leaves' partials
  TreeView<A> tree_view_;
  Buffer<u64> counts_;
  Buffer<u64> offsets_;
  Buffer<u32> keep_;
  Buffer<u32> rank_;
  Buffer<u32> res_spec_;  // a slice of results, as columns
  Buffer<u32> res_key_;
  Buffer<i64> res_start_;
  Buffer<i64> res_end_;
  Buffer<Value> res_value_;
  Buffer<i64> res_at_;  // Selected outputs only
  Buffer<u64> unrepresentable_;
};

}  // namespace sextant::window::detail::stream_gpu
