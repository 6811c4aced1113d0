// The dense layout of the CPU pane stage (window stage `dense`, time windows): the pending panes
// as rows over every key, row = one pane, cell = one key's accumulator (indexed by dense key id),
// and beside each row a bit per key that says whether the cell holds a tuple. Bits, not a tuple
// count per cell: a 64-bit sum's cell is then 8 bytes instead of 16 through the combines, the
// clears and the window stage's reads.
// Rows live in a ring that covers panes [lo, lo + rows), pane j in slot j & (rows - 1), so a tuple
// costs one multiply-add of addresses and an in-place combine, and closing a pane hands the window
// stage a whole row to walk sequentially. The ring grows with the disorder up to a memory bound;
// a pane beyond it (a jump in time) waits in an ordered side map until the ring reaches it.
//
// A released row belongs to the window stage until the pane stage's next call: it is cleared
// then (recycle), before any tuple may land in its slot again.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "core/column_vector.hpp"
#include "cpu/window/stream_closed_panes.hpp"
#include "cpu/window/stream_parallel.hpp"
#include "templates/window/stream_aggregates.hpp"

namespace sextant::window::detail {

// A tuple's partial for a pane outside the ring, kept aside while threads fill the ring.
template <StreamAggregate A>
struct DenseCell {
  std::uint32_t id;
  std::int64_t pane;
  Partial<A> p;
};

// A tuple on its way from a slice of the batch to the thread that combines its key range: the
// index of its cell in the ring and its value, plus its timestamp where the aggregate lifts with
// one. 8 bytes for a 4-byte value where a key, a pane and a lifted partial take 32: the slices
// write these and the combines read them back, so their size is memory traffic.
template <StreamAggregate A, bool = ContextLift<A>>
struct DenseTuple {
  std::uint32_t cell;
  typename A::Input value;
  [[gnu::always_inline]] Partial<A> lift() const noexcept { return Partial<A>::lift(value, {}); }
};
template <StreamAggregate A>
struct DenseTuple<A, true> {
  std::uint32_t cell;
  typename A::Input value;
  std::int64_t at;
  [[gnu::always_inline]] Partial<A> lift() const noexcept { return Partial<A>::lift(value, {at}); }
};

// The split of key ids over the threads that combine a batch into the rows: by lines of 64 ids
// (a line of a row is one part's), each part a contiguous range of lines (part[line]).
struct KeyParts {
  const std::uint16_t* part;
  std::size_t operator()(std::uint32_t id) const noexcept { return part[id >> 6]; }
};

template <StreamAggregate A>
class DensePanes {
 public:
  using P = Partial<A>;
  using Acc = typename A::Acc;

  // `threads` clear and lay out the ring (tens of MiB with many keys).
  DensePanes(std::uint64_t ring_bytes, int threads) : ring_bytes_(ring_bytes), threads_(threads) {}

  // Every pane below `lo` is closed (before the first add).
  void start(std::int64_t lo) noexcept { lo_ = lo; }
  std::uint32_t keys() const noexcept { return keys_; }
  // Makes room for the ids below `keys`.
  void reserve_keys(std::uint32_t keys) {
    if (keys > stride_)
      resize(std::max<std::uint64_t>(rows_, 2), std::bit_ceil(std::max<std::uint64_t>(keys, 64)));
    keys_ = std::max(keys_, keys);
  }

  // The ring as the hot loop keeps it in registers (stores to cells cannot be proved not to
  // alias the members): valid until the next add_slow or reserve_keys.
  struct Ring {
    std::int64_t lo;
    std::uint64_t rows;
    std::uint64_t stride;
    Acc* cells;
    std::uint64_t* taken;  // cell at's bit: word at / 64 (the stride is a multiple of 64)
    std::uint8_t* used;

    int stride_bits;  // stride = 2^stride_bits

    // Whether the ring covers `pane` (never a negative one: late tuples are marked -1).
    [[gnu::always_inline]] bool holds(std::int64_t pane) const noexcept {
      return static_cast<std::uint64_t>(pane) - static_cast<std::uint64_t>(lo) < rows;
    }
    // The index of the cell of (id, pane), for a pane the ring holds.
    [[gnu::always_inline]] std::uint64_t index(std::uint32_t id, std::int64_t pane) const noexcept {
      return ((static_cast<std::uint64_t>(pane) & (rows - 1)) << stride_bits) + id;
    }
    [[gnu::always_inline]] Acc* cell(std::uint32_t id, std::int64_t pane) const noexcept {
      return cells + index(id, pane);
    }
    // Merges `p` into cell `at` (an index). Threads that fill a row split it by lines of 64 ids,
    // so a word of bits is one thread's.
    [[gnu::always_inline]] void add_at(std::uint64_t at, const P& p) const noexcept {
      Acc& c = cells[at];
      c = A::combine(c, p.acc);
      taken[at >> 6] |= std::uint64_t{1} << (at & 63);
      // Threads filling different keys of one row all mark it: read first, so that the line
      // stays shared instead of moving between their caches at every tuple.
      std::atomic_ref<std::uint8_t> mark(used[at >> stride_bits]);
      if (mark.load(std::memory_order_relaxed) == 0) [[unlikely]]
        mark.store(1, std::memory_order_relaxed);
    }
    // Merges `p` into the cell of (id, pane); false (nothing done) when the pane is outside.
    [[gnu::always_inline]] bool add(std::uint32_t id, std::int64_t pane, const P& p) const noexcept {
      if (!holds(pane)) [[unlikely]]
        return false;
      add_at(index(id, pane), p);
      return true;
    }
  };
  Ring ring() noexcept {
    return {lo_, rows_, stride_, cells_.data(), taken_.data(), used_.data(), std::countr_zero(stride_)};
  }
  // Cells in the ring: a DenseTuple's 32-bit index reaches every one while this is <= 2^32.
  std::uint64_t cells() const noexcept { return rows_ * stride_; }

  // Grows the ring (within its memory bound) to reach pane `last`.
  void reserve_panes(std::int64_t last) {
    if (rows_ == 0 || last < lo_) return;
    const auto span = static_cast<std::uint64_t>(last - lo_) + 1;
    if (span <= rows_ || span > (std::uint64_t{1} << 40)) return;
    const std::uint64_t want = std::bit_ceil(span);
    if (want * row_bytes(stride_) <= ring_bytes_) resize(want, stride_);
  }

  // Merges `p` into the cell of (id, pane); pane >= the last release's frontier (the pane stage
  // drops late tuples first) and id < keys().
  void add(std::uint32_t id, std::int64_t pane, const P& p) {
    if (!ring().add(id, pane, p)) add_slow(id, pane, p);
  }
  // A pane outside the ring: the ring grows to it, or it waits in the side map.
  [[gnu::noinline]] void add_slow(std::uint32_t id, std::int64_t pane, const P& p) {
    if (pane >= lo_ && rows_ > 0) {
      const auto span = static_cast<std::uint64_t>(pane - lo_) + 1;
      if (span <= (std::uint64_t{1} << 40)) {
        const std::uint64_t want = std::bit_ceil(std::max(span, 2 * rows_));
        if (want * row_bytes(stride_) <= ring_bytes_) {
          resize(want, stride_);
          ring().add(id, pane, p);
          return;
        }
      }
    }
    far_[pane].emplace_back(id, p);
  }

  // Hands every pending pane below `frontier` to `closed` as rows (ascending) and slides the ring
  // to the frontier.
  void release(std::int64_t frontier, CpuClosedPanes<A>& closed) {
    recycle();
    closed.dense = true;
    closed.dense_keys = keys_;
    if (frontier <= lo_) return;
    const std::int64_t ring_end =
        lo_ + static_cast<std::int64_t>(std::min<std::uint64_t>(
                  rows_, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() - lo_)));
    for (std::int64_t j = lo_, e = std::min(frontier, ring_end); j < e; ++j) {
      const std::uint64_t slot = static_cast<std::uint64_t>(j) & (rows_ - 1);
      if (!used_[slot]) continue;
      closed.rows.push_back({j, cells_.data() + slot * stride_, taken_.data() + slot * words(stride_), 0, 0});
      handed_.push_back(slot);
    }
    // Waiting panes lie outside the ring: below its start (none in practice) or above its end.
    const auto ring_rows = closed.rows.size();
    for (auto it = far_.begin(); it != far_.end() && it->first < frontier; it = far_.erase(it)) {
      const auto begin = static_cast<std::uint32_t>(closed.cells.size());
      closed.cells.insert(closed.cells.end(), it->second.begin(), it->second.end());
      closed.rows.push_back(
          {it->first, nullptr, nullptr, begin, static_cast<std::uint32_t>(closed.cells.size())});
    }
    if (closed.rows.size() > ring_rows)
      std::stable_sort(closed.rows.begin(), closed.rows.end(),
                       [](const auto& a, const auto& b) { return a.pane < b.pane; });
    lo_ = std::min(frontier, std::numeric_limits<std::int64_t>::max() / 2);
  }

  // Clears the rows handed out by the last release, then moves the waiting panes the ring now
  // covers into it.
  void recycle() {
    const int threads = threads_for_bytes(handed_.size() * row_bytes(keys_), threads_);
    parallel_parts(static_cast<int>(handed_.size()), threads, [&](int i) {
      const std::uint64_t slot = handed_[static_cast<std::size_t>(i)];
      std::fill_n(cells_.data() + slot * stride_, keys_, A::identity());
      std::fill_n(taken_.data() + slot * words(stride_), words(keys_), std::uint64_t{0});
    });
    for (const std::uint64_t slot : handed_) used_[slot] = 0;
    handed_.clear();
    pull_far();
  }

 private:
  // Re-lays the ring out with `rows` rows of `stride` cells; pending rows keep their panes. The
  // threads fill the new rows (their first touch), each row from its old slot or the identity.
  void resize(std::uint64_t rows, std::uint64_t stride) {
    ColumnVector<Acc> cells(rows * stride);
    ColumnVector<std::uint64_t> taken(rows * words(stride));
    std::vector<std::uint8_t> used(rows, 0);
    std::vector<std::uint64_t> from(rows, rows_);  // the old slot of each new row (rows_: none)
    for (std::uint64_t slot = 0; slot < rows_; ++slot) {
      if (!used_[slot]) continue;
      const std::int64_t pane =
          lo_ + static_cast<std::int64_t>((slot - static_cast<std::uint64_t>(lo_)) & (rows_ - 1));
      const std::uint64_t to = static_cast<std::uint64_t>(pane) & (rows - 1);
      from[to] = slot;
      used[to] = 1;
    }
    const int threads = threads_for_bytes(rows * row_bytes(stride), threads_);
    parallel_parts(static_cast<int>(rows), threads, [&](int r) {
      const auto to = static_cast<std::uint64_t>(r);
      Acc* row = cells.data() + to * stride;
      std::uint64_t* bits = taken.data() + to * words(stride);
      const std::uint64_t kept = from[to] < rows_ ? keys_ : 0;
      if (kept > 0) {
        std::copy_n(cells_.data() + from[to] * stride_, kept, row);
        std::copy_n(taken_.data() + from[to] * words(stride_), words(kept), bits);
      }
      std::fill(row + kept, row + stride, A::identity());
      std::fill(bits + words(kept), bits + words(stride), std::uint64_t{0});
    });
    cells_.swap(cells);
    taken_.swap(taken);
    used_.swap(used);
    rows_ = rows;
    stride_ = stride;
    pull_far();
  }

  void pull_far() {
    if (rows_ == 0) return;
    const std::int64_t end =
        lo_ + static_cast<std::int64_t>(std::min<std::uint64_t>(
                  rows_, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() - lo_)));
    const Ring r = ring();
    for (auto it = far_.lower_bound(lo_); it != far_.end() && it->first < end; it = far_.erase(it))
      for (const auto& [id, p] : it->second) r.add_at(r.index(id, it->first), p);
  }

  // Words of bits for n cells; a row's bytes.
  static constexpr std::uint64_t words(std::uint64_t n) noexcept { return (n + 63) / 64; }
  static constexpr std::uint64_t row_bytes(std::uint64_t n) noexcept {
    return n * sizeof(Acc) + words(n) * 8;
  }

  std::uint64_t ring_bytes_;
  int threads_;
  std::int64_t lo_ = 0;       // the ring covers panes [lo_, lo_ + rows_)
  std::uint64_t rows_ = 0;    // a power of two (0 until the first key)
  std::uint64_t stride_ = 0;  // cells per row (>= keys_)
  std::uint32_t keys_ = 0;
  ColumnVector<Acc> cells_;            // rows_ * stride_
  ColumnVector<std::uint64_t> taken_;  // rows_ * words(stride_): a bit per cell
  std::vector<std::uint8_t> used_;     // per slot: the row holds a tuple
  std::vector<std::uint64_t> handed_;
  std::map<std::int64_t, std::vector<std::pair<std::uint32_t, P>>> far_;
};

// One slice's on-time tuples to the next free places of their parts (next[part], advanced), or
// lifted to `outside` when the ring does not hold their pane. The pointers are restrict so that
// the stores to the tuples do not make every read of the loop a reload.
template <StreamAggregate A>
void scatter_to_parts(const std::uint32_t* __restrict ids, const std::int64_t* __restrict panes,
                      const typename A::Input* __restrict values, const std::int64_t* __restrict timestamps,
                      std::size_t begin, std::size_t end, const typename DensePanes<A>::Ring& ring,
                      KeyParts part_of, std::size_t* __restrict next, DenseTuple<A>* __restrict tuples,
                      std::vector<DenseCell<A>>& outside) {
  for (std::size_t i = begin; i < end; ++i) {
    if (ring.holds(panes[i])) {
      DenseTuple<A>& t = tuples[next[part_of(ids[i])]++];
      t.cell = static_cast<std::uint32_t>(ring.index(ids[i], panes[i]));
      t.value = values[i];
      if constexpr (ContextLift<A>) t.at = timestamps[i];
    } else if (panes[i] >= 0) [[unlikely]] {
      outside.push_back({ids[i], panes[i], Partial<A>::lift(values[i], {timestamps[i]})});
    }
  }
}

}  // namespace sextant::window::detail
