// The rare paths of PaneShard (new key, new pane, a pane outside the ring, release). Included
// by stream_pane_shard.cpp, which instantiates them for the built-in aggregates without AVX2
// flags, and by stream_pane_stage_cpu.hpp for user-defined aggregates.
#pragma once

#include <algorithm>
#include <bit>
#include <limits>

#include "cpu/window/stream_pane_shard.hpp"

namespace sextant::window::detail {

namespace pane_ring {
inline constexpr std::uint64_t initial_capacity = 16;
// A ring grows to hold a wider pending range only while it stays at least 1/8 full (or is
// small): sparser ranges go to the overflow map, so gaps in time cost no memory.
inline std::uint64_t growth_limit(std::int64_t pending) {
  return std::min<std::uint64_t>(std::uint64_t{1} << 26,
                                 std::max<std::uint64_t>(1024, 8 * static_cast<std::uint64_t>(pending + 1)));
}
inline std::int64_t saturating_add(std::int64_t a, std::uint64_t b) {
  const auto room = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() - a);
  return b >= room ? std::numeric_limits<std::int64_t>::max() : a + static_cast<std::int64_t>(b);
}
}  // namespace pane_ring

template <StreamAggregate A>
typename PaneShard<A>::PendingStats PaneShard<A>::pending_stats() const {
  PendingStats s;
  for (const std::uint32_t id : active_) {
    const Cold& c = cold_[id];
    if (c.pending > 0) {
      s.cells += static_cast<std::uint64_t>(c.pending);
      s.min_pane = std::min(s.min_pane, c.min_pane);
      s.max_pane = std::max(s.max_pane, c.max_pane);
    }
    if (c.far && !c.far->empty()) {
      s.cells += c.far->size();
      s.min_pane = std::min(s.min_pane, c.far->begin()->first);
      s.max_pane = std::max(s.max_pane, c.far->rbegin()->first);
    }
  }
  return s;
}

template <StreamAggregate A>
std::uint32_t PaneShard<A>::add_key(StreamKey key) {
  const std::uint32_t id = index_.insert(key);
  hot_.emplace_back();
  cold_.emplace_back();
  cold_.back().key = key;
  resize_ring(id, pane_ring::initial_capacity, count_windows_ ? 0 : floor_);
  return id;
}

template <StreamAggregate A>
void PaneShard<A>::activate(std::uint32_t id) {
  Cold& c = cold_[id];
  if (c.active) return;
  c.active = true;
  active_.push_back(id);
}

template <StreamAggregate A>
void PaneShard<A>::new_pane(std::uint32_t id, std::int64_t pane) {
  Cold& c = cold_[id];
  if (c.pending++ == 0) {
    c.min_pane = c.max_pane = pane;
  } else {
    c.min_pane = std::min(c.min_pane, pane);
    c.max_pane = std::max(c.max_pane, pane);
  }
  activate(id);
}

// Pending panes lie in [min_pane, max_pane], inside both the old and the new ring.
template <StreamAggregate A>
void PaneShard<A>::resize_ring(std::uint32_t id, std::uint64_t capacity, std::int64_t lo) {
  Hot& h = hot_[id];
  Cold& c = cold_[id];
  std::vector<P> next(capacity, P::identity());
  const std::uint64_t mask = capacity - 1;
  if (c.pending > 0)
    for (std::int64_t j = c.min_pane; j <= c.max_pane; ++j) {
      const P& old = h.slots[static_cast<std::uint64_t>(j) & h.mask];
      if (old.tuples != 0) next[static_cast<std::uint64_t>(j) & mask] = old;
    }
  c.ring.swap(next);
  h.slots = c.ring.data();
  h.mask = mask;
  h.lo = lo;
}

template <StreamAggregate A>
void PaneShard<A>::pull_far(std::uint32_t id) {
  Cold& c = cold_[id];
  if (!c.far || c.far->empty()) return;
  Hot& h = hot_[id];
  const std::int64_t end = pane_ring::saturating_add(h.lo, h.mask + 1);
  for (auto it = c.far->lower_bound(h.lo); it != c.far->end() && it->first < end; it = c.far->erase(it)) {
    new_pane(id, it->first);
    h.slots[static_cast<std::uint64_t>(it->first) & h.mask] = it->second;
  }
}

template <StreamAggregate A>
std::int64_t PaneShard<A>::max_pending(std::uint32_t id) const {
  const Cold& c = cold_[id];
  std::int64_t m = c.pending > 0 ? c.max_pane : std::numeric_limits<std::int64_t>::min();
  if (c.far && !c.far->empty()) m = std::max(m, c.far->rbegin()->first);
  return m;
}

template <StreamAggregate A>
void PaneShard<A>::place(std::uint32_t id, std::int64_t pane, const P& p) {
  Hot& h = hot_[id];
  Cold& c = cold_[id];
  const std::uint64_t cap = h.mask + 1;
  if (c.pending == 0) {
    // An empty ring is re-centred on the pane, with a quarter of it below for disorder.
    std::int64_t lo = std::max<std::int64_t>(0, pane - static_cast<std::int64_t>(cap / 4));
    if (!count_windows_) lo = std::max(lo, std::min(floor_, pane));
    h.lo = lo;
    pull_far(id);
  } else {
    const std::int64_t lo_need = std::min(c.min_pane, pane);
    const std::uint64_t span = static_cast<std::uint64_t>(std::max(c.max_pane, pane) - lo_need) + 1;
    if (span <= cap) {
      h.lo = lo_need;
      pull_far(id);
    } else if (span <= pane_ring::growth_limit(c.pending)) {
      resize_ring(id, std::bit_ceil(std::max(span, 2 * cap)), lo_need);
      pull_far(id);
    }
  }
  if (static_cast<std::uint64_t>(pane - h.lo) <= h.mask) {
    P& slot = h.slots[static_cast<std::uint64_t>(pane) & h.mask];
    if (slot.tuples == 0) new_pane(id, pane);
    slot = P::combine(slot, p);
    return;
  }
  if (!c.far) c.far = std::make_unique<std::map<std::int64_t, P>>();
  auto [it, fresh] = c.far->try_emplace(pane, p);
  if (!fresh) it->second = P::combine(it->second, p);
  activate(id);
}

template <StreamAggregate A>
void PaneShard<A>::emit_far(std::uint32_t id, std::int64_t from, std::int64_t to, ShardRelease<A>& out) {
  Cold& c = cold_[id];
  if (!c.far || from >= to) return;
  for (auto it = c.far->lower_bound(from); it != c.far->end() && it->first < to; it = c.far->erase(it)) {
    out.panes.push_back(it->first);
    out.partials.push_back(it->second);
  }
}

template <StreamAggregate A>
void PaneShard<A>::release(std::int64_t frontier, ShardRelease<A>& out) {
  std::size_t keep = 0;
  for (const std::uint32_t id : active_) {
    Hot& h = hot_[id];
    Cold& c = cold_[id];
    const std::int64_t f = count_windows_ ? h.count / pane_ : frontier;
    const auto begin = static_cast<std::uint32_t>(out.panes.size());
    const std::int64_t ring_end = pane_ring::saturating_add(h.lo, h.mask + 1);
    emit_far(id, std::numeric_limits<std::int64_t>::min(), std::min(f, h.lo), out);
    if (c.pending > 0) {
      c.peak_span = std::max(c.peak_span, c.max_pane - c.min_pane + 1);
      const std::int64_t to = std::min({f, ring_end, c.max_pane + 1});
      for (std::int64_t j = c.min_pane; j < to; ++j) {
        P& slot = h.slots[static_cast<std::uint64_t>(j) & h.mask];
        if (slot.tuples == 0) continue;
        out.panes.push_back(j);
        out.partials.push_back(slot);
        slot = P::identity();
        if (--c.pending == 0) break;
      }
      c.min_pane = std::max(c.min_pane, f);
    }
    emit_far(id, ring_end, f, out);
    const auto end = static_cast<std::uint32_t>(out.panes.size());
    if (end > begin) out.runs.push_back({id, begin, end, f});
    // Every pending pane is >= f now, so the ring may start at f (end of stream: no more pushes).
    if (f > h.lo && f < std::numeric_limits<std::int64_t>::max() / 2) h.lo = f;
    // Shrink a ring that stayed at least 4x wider than what it held over the last 8 releases.
    if (++c.releases % 8 == 0) {
      const std::uint64_t need =
          std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(8, 2 * c.peak_span)));
      if (h.mask + 1 >= 4 * need) resize_ring(id, need, c.pending > 0 ? c.min_pane : h.lo);
      c.peak_span = 0;
    }
    // The ring moved: overflow panes that it covers now move in (an empty ring jumps to them).
    const bool far_left = c.far && !c.far->empty();
    if (far_left) {
      if (c.pending == 0) h.lo = c.far->begin()->first;
      pull_far(id);
    }
    if (c.pending > 0 || (c.far && !c.far->empty()))
      active_[keep++] = id;
    else
      c.active = false;
  }
  active_.resize(keep);
  if (!count_windows_)
    floor_ = std::max(floor_, std::min(frontier, std::numeric_limits<std::int64_t>::max() / 2));
}

}  // namespace sextant::window::detail
