// The scan window stage of one key and one window spec: O(1) combines per pane for any
// associative aggregate, for fine slides where the B-PAT's O(log w) per window dominates.
//
// Closed panes reach the window stage in ascending order whatever the stream's disorder (the
// pane stage absorbs it), so a window of w panes is a sliding range over a sequence that only
// grows: cut the sequence into blocks of w panes (block b = panes [b w, (b + 1) w)); a window
// starting at pane a inside block b - 1 ends inside block b and equals the suffix of block b - 1
// from a combined with the prefix of block b up to its end (van Herk; Gil and Werman). The stage
// keeps the suffixes of the previous block and the panes and running prefix of the current one:
// per pane one prefix combine, one suffix combine when its block completes, one combine per
// window. Memory grows with the key's panes up to 2 w accumulators.
//
// The blocks hold accumulators, not partials: a window holds a tuple exactly when the last
// non-empty pane so far lies in it, so the stage needs no tuple counts, and the sum of 64-bit
// values moves 8 bytes per pane through its blocks instead of 16.
//
// Empty panes below the frontier are appended as identities, but only while a window that holds
// a tuple can still end there (up to w - 1 panes after the last non-empty pane); then the stage
// is idle and jumps to the block of the next pane. The walk costs at most s panes per emitted
// window plus w per jump, which is why the cost model keeps coarse slides on the B-PAT.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "cpu/window/stream_bpat.hpp"
#include "templates/window/stream_aggregates.hpp"

namespace sextant::window::detail {

template <StreamAggregate A>
class PaneScan {
 public:
  using P = Partial<A>;
  using Acc = typename A::Acc;
  static constexpr std::int64_t idle = INT64_MAX;

  bool allocated() const noexcept { return w_ > 0; }
  void allocate(const BpatShape& g) {
    w_ = g.w;
    s_ = g.s;
    next_end_ = w_ - 1;
  }

  // Brings the lines the next append reads and writes towards the cache (many keys: each key's
  // state is a few cache misses away, and the window stage knows which keys come next).
  [[gnu::always_inline]] void prefetch() const noexcept {
    __builtin_prefetch(prev_.data() + cur_.size());
    __builtin_prefetch(cur_.data() + cur_.size(), 1);
  }

  // The contract of Bpat::advance: ascending pane ids, every pane below `frontier` closed;
  // emits (window, accumulator) in window order; returns the end pane of the next window that
  // holds a tuple, or `idle`.
  template <class Emit>
  std::int64_t advance(const BpatShape&, const std::int64_t* ids, const P* parts, std::size_t n,
                       std::int64_t frontier, std::vector<std::uint64_t>&, Emit&& emit) {
    for (std::size_t i = 0; i < n;) {
      if (ids[i] != next_ && !walk_to(ids[i], emit)) jump(ids[i]);
      // The run of consecutive panes from i that stays inside the current block.
      const std::size_t limit = std::min(n - i, static_cast<std::size_t>(w_) - cur_.size());
      std::size_t k = 1;
      while (k < limit && ids[i + k] == next_ + static_cast<std::int64_t>(k)) ++k;
      append_run(parts + i, k, emit);
      i += k;
    }
    walk_to(frontier, emit);  // stops early once dead: the next pane jumps
    return next_fire();
  }

 private:
  // No window that holds a tuple ends at or after next_: nothing stored matters any more.
  bool dead() const noexcept { return next_ - last_ >= w_; }

  // Appends empty panes up to pane `to` (exclusive); false when it stopped because dead.
  template <class Emit>
  bool walk_to(std::int64_t to, Emit& emit) {
    while (next_ < to) {
      if (dead()) return false;
      append_empty(emit);
    }
    return true;
  }

  // Restarts at the block of pane `to` with nothing stored: the panes of that block below `to`
  // are identities, and so are the previous block's suffixes.
  void jump(std::int64_t to) {
    block_ = to / w_;
    cur_.assign(static_cast<std::size_t>(to - block_ * w_), A::identity());
    prefix_ = A::identity();
    prev_.clear();
    next_ = to;
    const std::int64_t start =
        std::max<std::int64_t>(0, to + 1 - w_);  // of the first window ending at or after `to`
    next_end_ = (start + s_ - 1) / s_ * s_ + w_ - 1;
  }

  // Appends the empty pane next_, fires the window that ends there (if it holds a tuple) and
  // closes a full block.
  template <class Emit>
  [[gnu::always_inline]] void append_empty(Emit& emit) {
    cur_.push_back(A::identity());
    prefix_ = A::combine(prefix_, A::identity());  // like any pane: bit for bit, signed zeros too
    if (next_ == next_end_) {
      // The window is the whole current block, or the previous block's suffix from its start
      // (at offset cur_.size() there) combined with the current prefix.
      const std::size_t at = cur_.size();
      if (last_ > next_end_ - w_)
        emit((next_end_ + 1 - w_) / s_,
             static_cast<std::int64_t>(at) == w_ || prev_.empty() ? prefix_ : A::combine(prev_[at], prefix_));
      next_end_ += s_;
    }
    ++next_;
    if (static_cast<std::int64_t>(cur_.size()) == w_) close_block();
  }

  // Appends the k panes next_, next_ + 1, ... (inside the current block) and fires the windows
  // that end there (fine slides fire at every pane), with the state in registers.
  template <class Emit>
  [[gnu::always_inline]] void append_run(const P* p, std::size_t k, Emit& emit) {
    const std::size_t at0 = cur_.size();
    cur_.resize(at0 + k);
    Acc* const out = cur_.data() + at0;
    const Acc* prev = prev_.empty() ? nullptr : prev_.data();
    const auto w = static_cast<std::size_t>(w_);
    Acc prefix = prefix_;
    std::int64_t id = next_, end = next_end_, last = last_;
    std::int64_t window = (end + 1 - w_) / s_;  // starts are multiples of s_: no division per window
    for (std::size_t j = 0; j < k; ++j, ++id) {
      out[j] = p[j].acc;
      prefix = A::combine(prefix, p[j].acc);
      if (p[j].tuples > 0) last = id;
      if (id == end) {
        const std::size_t at = at0 + j + 1;
        if (last > end - w_) emit(window, at == w || prev == nullptr ? prefix : A::combine(prev[at], prefix));
        end += s_;
        ++window;
      }
    }
    next_ = id;
    next_end_ = end;
    last_ = last;
    prefix_ = prefix;
    if (cur_.size() == w) close_block();
  }

  // The current block is full: it becomes the previous block, as suffixes.
  void close_block() {
    for (std::size_t i = cur_.size() - 1; i-- > 0;) cur_[i] = A::combine(cur_[i], cur_[i + 1]);
    std::swap(prev_, cur_);
    cur_.clear();
    prefix_ = A::identity();
    ++block_;
  }

  // The end pane (exclusive) of the first window ending at or after next_ if it holds a tuple:
  // the window's start is at most the last non-empty pane.
  std::int64_t next_fire() const noexcept {
    if (dead()) return idle;
    const std::int64_t start = next_end_ + 1 - w_;
    return start <= last_ ? next_end_ + 1 : idle;
  }

  std::int64_t w_ = 0, s_ = 1;         // panes per window and per slide; w_ = 0 until allocated
  std::int64_t block_ = 0;             // cur_ holds panes [block_ w, next_)
  std::int64_t next_ = 0;              // every pane below has been appended, or skipped while dead
  std::int64_t next_end_ = 0;          // the last pane of the next window to fire (>= next_)
  std::int64_t last_ = INT64_MIN / 2;  // the last non-empty pane appended
  Acc prefix_ = A::identity();         // of cur_
  std::vector<Acc> cur_;               // the current block's panes
  std::vector<Acc> prev_;              // the previous block's suffixes; empty: identities
};

}  // namespace sextant::window::detail
