// The Batched Pane Aggregation Tree of one key and one window spec (paper 000, section IV-B
// and V-B), flat and pointer-less: m = tree_leaves leaves (a power of two) hold the closed
// panes [base, base + m) circularly (pane j in leaf j & (m - 1)); level h (node q covers
// leaves [q 2^h, (q + 1) 2^h)) follows level h - 1 in one array, and only the levels
// h <= floor(log2 w) exist: a window of w panes never needs a wider node. A bitmap of the
// non-empty leaves lets the tree skip empty stretches (sparse time, S > W gaps) in O(m / 64).
//
// advance() inserts closed panes, updates their ancestors level by level once per batch of
// changes, and fires every complete window that holds a tuple, each with O(log w) combines.
// Windows fire as soon as the frontier completes them; n_w only sizes the tree, i.e. how many
// consecutive windows one fill of the leaves serves before the base moves on.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window::detail {

// One spec's shape for the CPU window stage, and the stage that runs it (a B-PAT or a scan,
// stream_pane_scan.hpp).
struct BpatShape {
  std::uint32_t spec = 0;
  WindowStageKind stage = WindowStageKind::bpat;
  std::uint32_t slot = 0;              // index among the key's structures of that stage
  std::int64_t length = 0, slide = 0;  // W, S
  std::int64_t w = 0, s = 0;           // panes per window, per slide
  std::int64_t m = 0;                  // leaves
  std::uint64_t mask = 0;
  int levels = 0;
  std::array<std::int64_t, 48> offset{};  // where level h starts in the node array
  std::int64_t nodes = 0;
  std::int64_t words = 0;  // of the non-empty bitmap

  BpatShape(const SpecGeometry& g, std::uint32_t index)
      : spec(index),
        length(g.spec.length),
        slide(g.spec.slide),
        w(g.panes_per_window),
        s(g.panes_per_slide),
        m(g.tree_leaves),
        mask(static_cast<std::uint64_t>(g.tree_leaves) - 1),
        levels(g.tree_levels) {
    for (int h = 0; h < levels; ++h) {
      offset[h] = nodes;
      nodes += m >> h;
    }
    words = std::max<std::int64_t>(1, m / 64);
  }
  // The first window that contains pane j; for a pane in a gap (S > W), the first one after it.
  std::int64_t first_window(std::int64_t j) const noexcept {
    const std::int64_t lo = j - w + 1;
    return lo <= 0 ? 0 : (lo + s - 1) / s;
  }
  bool in_a_window(std::int64_t j) const noexcept { return s <= w || j % s < w; }
};

// Bytes of one key's structure for `g` (a B-PAT or a scan, at its largest) with partials of
// `partial_bytes`.
std::uint64_t stage_bytes(const BpatShape& g, std::size_t partial_bytes) noexcept;
// Up front: throws Error (resource, exit 5) when one key's structures of every spec need more
// than `memory` bytes (default: the memory this process may use, usable_memory_bytes), naming the
// sizes and what would fit.
void check_window_stage_memory(const std::vector<BpatShape>& shapes, std::size_t partial_bytes,
                               std::uint64_t memory = 0);
// Throws Error (resource) for a tree of `g` that could not be allocated.
[[noreturn]] void throw_bpat_allocation(const BpatShape& g, std::size_t partial_bytes);

template <StreamAggregate A>
class Bpat {
 public:
  using P = Partial<A>;
  static constexpr std::int64_t idle = INT64_MAX;

  bool allocated() const noexcept { return nodes_ != nullptr; }
  void allocate(const BpatShape& g) {
    try {
      nodes_ = std::make_unique<P[]>(static_cast<std::size_t>(g.nodes));
      bits_ = std::make_unique<std::uint64_t[]>(static_cast<std::size_t>(g.words));
    } catch (const std::bad_alloc&) {
      nodes_.reset();
      throw_bpat_allocation(g, sizeof(P));
    }
    std::fill_n(nodes_.get(), g.nodes, P::identity());
  }

  // Takes the key's newly closed panes (ascending ids) and `frontier` (every pane below is
  // closed); calls emit(k, accumulator) for every window k that is complete now and holds a
  // tuple. Returns the end pane of the first window that holds a tuple and waits for the
  // frontier (the frontier that will fire it), or `idle` when none does. `dirty` is
  // scratch (empty between calls): the leaves whose ancestors are stale.
  template <class Emit>
  std::int64_t advance(const BpatShape& g, const std::int64_t* ids, const P* parts, std::size_t n,
                       std::int64_t frontier, std::vector<std::uint64_t>& dirty, Emit&& emit) {
    std::size_t i = 0;
    // Panes [known_from, known_to) are known to be empty: the last scan found nothing there.
    // It stays true within this call (inserts land at or above the `end` of that scan, evictions
    // only clear), so that firing the w windows of one pane scans the gap before it once, not
    // once per window (which cost O(w^2 / 64) for a lone pane).
    std::int64_t known_from = 0, known_to = 0;
    for (;;) {
      const std::int64_t end = base_ + g.m;
      for (; i < n && ids[i] < end; ++i)
        if (ids[i] >= next_ * g.s && g.in_a_window(ids[i])) insert(g, ids[i], parts[i], dirty);
      const std::int64_t from = std::max(base_, next_ * g.s);
      const std::int64_t j =
          first_nonempty(g, from >= known_from && from < known_to ? std::min(known_to, end) : from, end);
      known_from = from;
      known_to = j;
      if (j == end) {  // nothing left in the tree: jump to the next pane's first window
        if (i == n) {
          flush(g, dirty);
          return idle;
        }
        next_ = std::max(next_, g.first_window(ids[i]));
        evict_to(g, next_ * g.s, dirty);
        continue;
      }
      const std::int64_t k = std::max(next_, g.first_window(j));  // earlier windows are empty
      next_ = k;
      if (k * g.s + g.w > base_ + g.m) {  // window k is not in the tree yet: move it on
        evict_to(g, k * g.s, dirty);
        continue;
      }
      if (k * g.s + g.w > frontier) {  // not complete yet
        flush(g, dirty);
        return k * g.s + g.w;
      }
      flush(g, dirty);
      const P r = query(g, k * g.s);
      if (r.tuples > 0) emit(k, r.acc);
      next_ = k + 1;
    }
  }

 private:
  P& node(const BpatShape& g, int h, std::uint64_t q) noexcept { return nodes_[g.offset[h] + q]; }

  void insert(const BpatShape& g, std::int64_t j, const P& p, std::vector<std::uint64_t>& dirty) {
    const std::uint64_t pos = static_cast<std::uint64_t>(j) & g.mask;
    node(g, 0, pos) = p;
    bits_[pos >> 6] |= std::uint64_t{1} << (pos & 63);
    dirty.push_back(pos);
  }

  // The first non-empty leaf's pane in [from, to) (to - from <= m), or `to`.
  std::int64_t first_nonempty(const BpatShape& g, std::int64_t from, std::int64_t to) const noexcept {
    while (from < to) {
      const std::uint64_t pos = static_cast<std::uint64_t>(from) & g.mask;
      const std::uint64_t word = bits_[pos >> 6] >> (pos & 63);
      const std::int64_t avail = std::min<std::int64_t>(
          {64 - static_cast<std::int64_t>(pos & 63), g.m - static_cast<std::int64_t>(pos), to - from});
      if (word != 0 && std::countr_zero(word) < avail) return from + std::countr_zero(word);
      from += avail;
    }
    return to;
  }

  // The leaves move on to [nb, nb + m): the panes below nb leave (every window that needs
  // them has fired or is empty).
  void evict_to(const BpatShape& g, std::int64_t nb, std::vector<std::uint64_t>& dirty) {
    if (nb <= base_) return;
    const std::int64_t to = std::min(nb, base_ + g.m);
    for (std::int64_t j = first_nonempty(g, base_, to); j < to; j = first_nonempty(g, j + 1, to)) {
      const std::uint64_t pos = static_cast<std::uint64_t>(j) & g.mask;
      node(g, 0, pos) = P::identity();
      bits_[pos >> 6] &= ~(std::uint64_t{1} << (pos & 63));
      dirty.push_back(pos);
    }
    base_ = nb;
  }

  // Recomputes the ancestors of the changed leaves, one level at a time.
  void flush(const BpatShape& g, std::vector<std::uint64_t>& dirty) {
    for (int h = 1; h < g.levels && !dirty.empty(); ++h) {
      std::size_t out = 0;
      std::uint64_t last = ~std::uint64_t{0};
      for (const std::uint64_t d : dirty) {
        const std::uint64_t q = d >> 1;
        if (q == last) continue;
        last = q;
        dirty[out++] = q;
        node(g, h, q) = P::combine(node(g, h - 1, 2 * q), node(g, h - 1, 2 * q + 1));
      }
      dirty.resize(out);
    }
    dirty.clear();
  }

  // Leaves [l, r) with the fewest nodes: a node is read only when it lies inside the range,
  // so never above level floor(log2(r - l)).
  P range(const BpatShape& g, std::uint64_t l, std::uint64_t r) noexcept {
    P acc = P::identity();
    for (int h = 0; l < r; ++h, l >>= 1, r >>= 1) {
      if (l & 1) acc = P::combine(acc, node(g, h, l++));
      if (r & 1) acc = P::combine(acc, node(g, h, --r));
    }
    return acc;
  }

  P query(const BpatShape& g, std::int64_t start) noexcept {
    const std::uint64_t a = static_cast<std::uint64_t>(start) & g.mask;
    const auto w = static_cast<std::uint64_t>(g.w), m = static_cast<std::uint64_t>(g.m);
    if (a + w <= m) return range(g, a, a + w);
    return P::combine(range(g, a, m), range(g, 0, a + w - m));  // the window wraps around
  }

  std::int64_t base_ = 0;  // the leaves hold panes [base_, base_ + m); base_ <= next_ * s
  std::int64_t next_ = 0;  // every window below has fired or is empty
  std::unique_ptr<P[]> nodes_;
  std::unique_ptr<std::uint64_t[]> bits_;
};

}  // namespace sextant::window::detail
