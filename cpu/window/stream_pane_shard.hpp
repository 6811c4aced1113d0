// One thread's share of the pane-level stage (paper 000, PLS): per key, the pending (not yet
// closed) pane partials in a circular buffer. The ring of a key covers the pane ids
// [lo, lo + cap) and pane j lives in slot j & (cap - 1), so the hot loop finds a slot with one
// subtraction, one compare and one mask. The ring slides, grows and shrinks with the disorder;
// a pane far outside it (sparse time: 0 then 10^12) goes to a small ordered overflow map
// instead of materialising the empty panes in between.
//
// The hot accessors are inline; everything rare (new key, new pane, a pane outside the ring,
// release) is out of line in stream_pane_shard_impl.hpp, compiled without AVX2 flags, so the
// AVX2 kernel never instantiates shared code with AVX2 instructions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "cpu/window/stream_divider.hpp"
#include "cpu/window/stream_key_index.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window::detail {

// The panes one shard releases: runs of one key (local id), ascending pane ids.
template <StreamAggregate A>
struct ShardRelease {
  struct Run {
    std::uint32_t local = 0;
    std::uint32_t begin = 0, end = 0;
    std::int64_t frontier = 0;
  };
  std::vector<Run> runs;
  std::vector<std::int64_t> panes;
  std::vector<Partial<A>> partials;

  void clear() {
    runs.clear();
    panes.clear();
    partials.clear();
  }
};

template <StreamAggregate A>
class PaneShard {
 public:
  using P = Partial<A>;

  // What the hot loop reads per tuple: 32 bytes, two keys per cache line.
  struct Hot {
    std::int64_t lo = 0;     // the ring covers panes [lo, lo + mask + 1)
    std::uint64_t mask = 0;  // capacity - 1 (a power of two)
    P* slots = nullptr;      // slot j & mask holds pane j; tuples == 0: empty
    std::int64_t count = 0;  // count windows: the key's tuples so far
  };

  PaneShard(const StreamGeometry& g) : pane_(g.pane), count_windows_(g.type == WindowType::count) {}

  [[gnu::always_inline]] std::uint32_t find(StreamKey key) const noexcept { return index_.find(key); }
  [[gnu::always_inline]] Hot& hot(std::uint32_t id) noexcept { return hot_[id]; }
  // For a hot loop that keeps them in registers: valid until the next add_key.
  const KeyIndex& index() const noexcept { return index_; }
  Hot* hot_data() noexcept { return hot_.data(); }
  std::uint32_t keys() const noexcept { return index_.size(); }
  StreamKey key_of(std::uint32_t id) const noexcept { return cold_[id].key; }
  std::uint32_t& global_id(std::uint32_t id) noexcept { return cold_[id].gid; }

  // The pending (key, pane) cells and the range of their panes (for the choice of layout).
  struct PendingStats {
    std::uint64_t cells = 0;
    std::int64_t min_pane = INT64_MAX, max_pane = INT64_MIN;
  };

  // Out of line (stream_pane_shard_impl.hpp).
  PendingStats pending_stats() const;
  std::uint32_t add_key(StreamKey key);
  // A slot of pane `pane` was empty and is about to receive its first tuple.
  void new_pane(std::uint32_t id, std::int64_t pane);
  // The highest pending pane of key `id` (ring or overflow), or INT64_MIN when it has none; may
  // be above it after a release (never below).
  std::int64_t max_pending(std::uint32_t id) const;
  // Merges `p` into pane `pane`, which lies outside the key's ring.
  void place(std::uint32_t id, std::int64_t pane, const P& p);
  // Moves every pending pane below the frontier into `out` (time: `frontier` for every key;
  // count windows: each key's full panes). The ring slides up to the frontier and may shrink.
  void release(std::int64_t frontier, ShardRelease<A>& out);

 private:
  struct Cold {
    StreamKey key = 0;
    std::uint32_t gid = KeyIndex::absent;  // the stage's dense id, given at the first release
    std::int64_t pending = 0;              // non-empty ring slots
    std::int64_t min_pane = 0;             // bounds of the non-empty ring panes (pending > 0)
    std::int64_t max_pane = 0;
    std::int64_t peak_span = 0;  // widest pending range since the last shrink check
    std::uint32_t releases = 0;
    bool active = false;  // in active_: has pending panes (ring or far)
    std::vector<P> ring;
    std::unique_ptr<std::map<std::int64_t, P>> far;
  };

  void activate(std::uint32_t id);
  void resize_ring(std::uint32_t id, std::uint64_t capacity, std::int64_t lo);
  void pull_far(std::uint32_t id);  // far panes now inside the ring move into it
  void emit_far(std::uint32_t id, std::int64_t from, std::int64_t to, ShardRelease<A>& out);

  std::int64_t pane_;
  bool count_windows_;
  std::int64_t floor_ = 0;  // time windows: every pane below is closed
  KeyIndex index_;
  std::vector<Hot> hot_;
  std::vector<Cold> cold_;
  std::vector<std::uint32_t> active_;
};

}  // namespace sextant::window::detail
