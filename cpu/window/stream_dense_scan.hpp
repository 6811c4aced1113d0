// The dense window stage of one spec: the block scan of stream_pane_scan.hpp run for every key
// in lockstep over the rows of the dense pane layout (stream_dense_panes.hpp). Every key shares
// the pane sequence, so the scan's control (current block, next pane, next window end, the last
// pane with a tuple) is one per spec, and its per-key state is stored by pane over keys: the
// current block's panes, the previous block's suffixes and the running prefixes. A closed pane
// is then one sequential pass over a row of cells: a prefix combine and a store per key, and per
// window one combine and the emission of each key that has a tuple in it.
//
// The blocks hold accumulators without tuple counts: whether a window holds a tuple of key k is
// whether k's last pane with one lies in it, kept per key (one row, not one per pane). A 64-bit
// sum then takes 8 bytes a cell through the blocks' stores, the suffix pass and the reads.
//
// Keys split into ranges that threads process independently: each replays the same control over
// its own columns (run() takes the control by value), so the threads agree on it without
// talking.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/column_vector.hpp"
#include "cpu/window/stream_bpat.hpp"
#include "cpu/window/stream_closed_panes.hpp"
#include "cpu/window/stream_parallel.hpp"
#include "templates/window/stream_aggregates.hpp"

namespace sextant::window::detail {

template <StreamAggregate A>
class DenseScan {
 public:
  using P = Partial<A>;
  using Acc = typename A::Acc;
  using Row = typename CpuClosedPanes<A>::Row;

  struct Control {
    std::int64_t next = 0;              // every pane below has been appended, or skipped while dead
    std::int64_t next_end = 0;          // the last pane of the next window to fire (>= next)
    std::int64_t fill = 0;              // panes of the current block appended: [next - fill, next)
    std::int64_t last = INT64_MIN / 2;  // the last pane with a tuple of any key
    int cur = 0;                        // which buffer holds the current block
    bool have_prev = false;             // the other buffer holds the previous block's suffixes
    std::uint64_t windows = 0;          // windows completed so far (each fires the keys it holds)
    std::uint64_t trailing = 0;         // of them, by a pane after the last with a tuple
  };

  explicit DenseScan(const BpatShape& g) : w_(g.w), s_(g.s) { control_.next_end = w_ - 1; }

  const Control& control() const noexcept { return control_; }
  void commit(const Control& c) noexcept { control_ = c; }

  // Room for the ids below `keys` (new keys: nothing stored, every accumulator the identity, no
  // pane with a tuple). With many keys the blocks are hundreds of MiB: `threads` lay them out
  // (and touch them first).
  void reserve_keys(std::uint32_t keys, int threads) {
    if (keys <= stride_) return;
    const std::uint64_t stride = std::max<std::uint64_t>(std::bit_ceil(std::uint64_t{keys}), 64);
    const auto relayout = [&]<class T>(ColumnVector<T>& v, std::int64_t rows, const T& fresh) {
      ColumnVector<T> next(static_cast<std::size_t>(rows) * stride);
      const int team = threads_for_bytes(static_cast<std::uint64_t>(rows) * stride * sizeof(T), threads);
      parallel_parts(static_cast<int>(rows), team, [&](int r) {
        T* row = next.data() + static_cast<std::uint64_t>(r) * stride;
        if (stride_ > 0) std::copy_n(v.data() + static_cast<std::uint64_t>(r) * stride_, stride_, row);
        std::fill(row + stride_, row + stride, fresh);
      });
      v.swap(next);
    };
    relayout(blocks_[0], w_, A::identity());
    relayout(blocks_[1], w_, A::identity());
    relayout(prefix_, 1, A::identity());
    relayout(last_, 1, never);
    far_ = ColumnVector<P>(stride);  // untouched until a pane waits outside the ring
    stride_ = stride;
  }

  // Appends the closed rows and walks to `frontier` for keys [k0, k1), from control `c`;
  // emit(id, window, accumulator) for every window that holds a tuple of key id. Returns the
  // control after it (the same for every key range; k0 == k1 computes only that, cheaply).
  template <class Emit>
  Control run(Control c, const std::vector<Row>& rows, const CpuClosedPanes<A>& closed, std::int64_t frontier,
              std::uint32_t k0, std::uint32_t k1, Emit&& emit) {
    for (const Row& row : rows) {
      if (!walk_to(c, row.pane, k0, k1, emit)) jump(c, row.pane, k0, k1);
      c.last = row.pane;
      if (row.cells != nullptr) {
        append_pane(
            c, k0, k1, emit, [cells = row.cells](std::uint32_t k) { return cells[k]; },
            [taken = row.taken](std::uint32_t k) { return (taken[k >> 6] >> (k & 63)) & 1; });
        continue;
      }
      // A pane that waited outside the ring (a jump in time, rare): its cells into a row of
      // partials first, then that row.
      P* far = far_.data();
      std::fill(far + k0, far + k1, P::identity());
      for (std::uint32_t i = row.begin; i < row.end; ++i) {
        const auto& [id, p] = closed.cells[i];
        if (id >= k0 && id < k1) far[id] = P::combine(far[id], p);
      }
      append_pane(
          c, k0, k1, emit, [far](std::uint32_t k) { return far[k].acc; },
          [far](std::uint32_t k) { return far[k].tuples > 0; });
    }
    walk_to(c, frontier, k0, k1, emit);  // stops early once dead: the next row jumps
    return c;
  }

 private:
  static constexpr std::int64_t never = INT64_MIN / 2;  // a key's last pane before its first tuple

  Acc* store(const Control& c) noexcept { return blocks_[c.cur].data() + c.fill * stride_; }

  bool dead(const Control& c) const noexcept { return c.next - c.last >= w_; }

  // Appends empty panes up to `to` (exclusive); false when it stopped because dead.
  template <class Emit>
  bool walk_to(Control& c, std::int64_t to, std::uint32_t k0, std::uint32_t k1, Emit& emit) {
    while (c.next < to) {
      if (dead(c)) return false;
      append_pane(
          c, k0, k1, emit, [](std::uint32_t) { return A::identity(); }, nullptr);
    }
    return true;
  }

  // Restarts at the block of pane `to` with nothing stored.
  void jump(Control& c, std::int64_t to, std::uint32_t k0, std::uint32_t k1) {
    c.fill = to - to / w_ * w_;
    for (std::int64_t r = 0; r < c.fill; ++r) {
      Acc* row = blocks_[c.cur].data() + r * stride_;
      std::fill(row + k0, row + k1, A::identity());
    }
    std::fill(prefix_.data() + k0, prefix_.data() + k1, A::identity());
    c.have_prev = false;
    c.next = to;
    const std::int64_t start =
        std::max<std::int64_t>(0, to + 1 - w_);  // of the first window ending at or after `to`
    c.next_end = (start + s_ - 1) / s_ * s_ + w_ - 1;
  }

  // Appends pane c.next, whose accumulator of key k is cell(k), in one pass over the keys: stores
  // it in the current block, adds it to the prefixes, notes the keys with a tuple in it (taken(k);
  // nullptr: none) and fires the window that ends there, if any. Then a full block closes into
  // suffixes.
  template <class Emit, class Cell, class Taken>
  void append_pane(Control& c, std::uint32_t k0, std::uint32_t k1, Emit& emit, Cell&& cell, Taken&& taken) {
    constexpr bool marks = !std::is_same_v<std::remove_cvref_t<Taken>, std::nullptr_t>;
    Acc* cur = store(c);
    Acc* prefix = prefix_.data();
    std::int64_t* last = last_.data();
    const std::int64_t pane = c.next;
    if (pane != c.next_end) {
      for (std::uint32_t k = k0; k < k1; ++k) {
        const Acc v = cell(k);
        cur[k] = v;
        prefix[k] = A::combine(prefix[k], v);
        if constexpr (marks) last[k] = taken(k) ? pane : last[k];
      }
    } else {
      const std::int64_t at = c.fill + 1;
      const std::int64_t window = (c.next_end + 1 - w_) / s_;
      const std::int64_t before = pane - w_;  // the window holds a tuple of k if k's last is later
      if (at == w_ || !c.have_prev) {         // the window is the block so far
        for (std::uint32_t k = k0; k < k1; ++k) {
          const Acc v = cell(k);
          cur[k] = v;
          const Acc r = A::combine(prefix[k], v);
          prefix[k] = r;
          if constexpr (marks) last[k] = taken(k) ? pane : last[k];
          if (last[k] > before) emit(k, window, r);
        }
      } else {  // the previous block's suffix from `at` on, then the block so far
        const Acc* suffix = blocks_[1 - c.cur].data() + at * stride_;
        for (std::uint32_t k = k0; k < k1; ++k) {
          const Acc v = cell(k);
          cur[k] = v;
          const Acc pre = A::combine(prefix[k], v);
          prefix[k] = pre;
          if constexpr (marks) last[k] = taken(k) ? pane : last[k];
          if (last[k] > before) emit(k, window, A::combine(suffix[k], pre));
        }
      }
      c.next_end += s_;
      ++c.windows;
      c.trailing += c.next > c.last;
    }
    ++c.next;
    if (++c.fill == w_) {
      Acc* block = blocks_[c.cur].data();
      for (std::int64_t r = w_ - 1; r-- > 0;) {
        Acc* row = block + r * stride_;
        const Acc* above = row + stride_;
        for (std::uint32_t k = k0; k < k1; ++k) row[k] = A::combine(row[k], above[k]);
      }
      std::fill(prefix_.data() + k0, prefix_.data() + k1, A::identity());
      c.cur = 1 - c.cur;
      c.have_prev = true;
      c.fill = 0;
    }
  }

  std::int64_t w_, s_;  // panes per window and per slide
  Control control_;
  std::uint64_t stride_ = 0;         // cells per row (>= keys)
  ColumnVector<Acc> blocks_[2];      // w_ rows each: the current block's panes, the previous block's suffixes
  ColumnVector<Acc> prefix_;         // one row: the current block's running prefix per key
  ColumnVector<std::int64_t> last_;  // one row: each key's last pane with a tuple (or never)
  ColumnVector<P> far_;              // one row: the partials of a pane that waited outside the ring
};

}  // namespace sextant::window::detail
