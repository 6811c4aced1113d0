// Internal: the per-element steps of the GPU stream-window stages, callable from device code
// (one thread per element) and from host code (the sequential emulation the tests run without a
// GPU). Plain C++ outside nvcc: atomics fall back to plain operations, which is exact because the
// host emulation runs elements one after another.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/host_device.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"

namespace sextant::window::detail::stream_gpu {

using u32 = std::uint32_t;
using u64 = unsigned long long;  // the type of CUDA's 64-bit atomics
using i64 = std::int64_t;
static_assert(sizeof(u64) == 8 && sizeof(i64) == 8);

inline constexpr u64 no_index = ~0ull;             // "none" in min-reductions of tuple indices
inline constexpr u64 late_key = ~0ull;             // sort key of dropped tuples: they sort last
inline constexpr i64 no_wm = INT64_MIN;            // window::no_watermark
inline constexpr i64 no_limit = INT64_MAX;         // frontier at end of stream
inline constexpr u64 table_empty = 0xFFFFFFFEull;  // key 0 with a slot that is never used
inline constexpr u32 slot_pending = 0xFFFFFFFFu;   // claimed, slot not published yet

// ---- small host/device helpers --------------------------------------------------------------

template <class T>
SEXTANT_HD_INLINE T min_of(T a, T b) {
  return b < a ? b : a;
}
template <class T>
SEXTANT_HD_INLINE T max_of(T a, T b) {
  return a < b ? b : a;
}

SEXTANT_HD_INLINE int bit_width64(u64 x) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(x));
#else
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(x)));
#endif
}

// Trailing zeros; 64 for 0.
SEXTANT_HD_INLINE int trailing_zeros64(u64 x) {
#if defined(__CUDA_ARCH__)
  return x == 0 ? 64 : __ffsll(static_cast<long long>(x)) - 1;
#else
  return static_cast<int>(std::countr_zero(static_cast<std::uint64_t>(x)));
#endif
}

SEXTANT_HD_INLINE u64 atomic_cas64(u64* p, u64 expected, u64 desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(p, expected, desired);
#else
  const u64 old = *p;
  if (old == expected) *p = desired;
  return old;
#endif
}

SEXTANT_HD_INLINE void atomic_store64(u64* p, u64 value) {
#if defined(__CUDA_ARCH__)
  __threadfence();  // the slot's key is visible before the slot is
  atomicExch(p, value);
#else
  *p = value;
#endif
}

SEXTANT_HD_INLINE u32 atomic_add32(u32* p, u32 v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  const u32 old = *p;
  *p += v;
  return old;
#endif
}

SEXTANT_HD_INLINE void atomic_min64(u64* p, u64 v) {
#if defined(__CUDA_ARCH__)
  atomicMin(p, v);
#else
  *p = min_of(*p, v);
#endif
}

SEXTANT_HD_INLINE u64 volatile_load64(const u64* p) {
  return *static_cast<const volatile u64*>(p);
}

// First index in [lo, hi) whose element is not less than the target (less(i) = element i < target).
template <class Less>
SEXTANT_HD_INLINE u64 lower_bound_by(u64 lo, u64 hi, Less less) {
  while (lo < hi) {
    const u64 mid = lo + (hi - lo) / 2;
    if (less(mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

SEXTANT_HD_INLINE u64 lower_bound_u64(const u64* a, u64 n, u64 key) {
  return lower_bound_by(0, n, [=](u64 i) { return a[i] < key; });
}
SEXTANT_HD_INLINE u64 upper_bound_u64(const u64* a, u64 n, u64 key) {
  return lower_bound_by(0, n, [=](u64 i) { return a[i] <= key; });
}

// ---- key -> dense slot --------------------------------------------------------------------

SEXTANT_HD_INLINE u32 mix32(u32 x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

// Open addressing, linear probing. An entry is table_empty, (key << 32 | slot_pending) while its
// inserting thread assigns the slot, or (key << 32 | slot). Slots are numbered in insertion
// order by one counter, so they stay dense; slot_key inverts the map for the output.
struct KeyTable {
  u64* entries = nullptr;
  u64 mask = 0;  // capacity - 1 (a power of two)
  u32* slot_key = nullptr;
  u32 slot_capacity = 0;
  u32* slots = nullptr;  // slots handed out, in device memory (may exceed slot_capacity)

  // The slot of `key`, inserting it if new. `overflow` is set when the table is full or the
  // slot is beyond slot_capacity: the caller grows both and runs the chunk again.
  SEXTANT_HD u32 find_or_insert(u32 key, bool& overflow) const {
    u64 h = mix32(key) & mask;
    for (u64 probe = 0; probe <= mask; ++probe, h = (h + 1) & mask) {
      u64 e = volatile_load64(entries + h);
      if (e == table_empty) {
        const u64 prev = atomic_cas64(entries + h, table_empty, (u64{key} << 32) | slot_pending);
        if (prev == table_empty) {
          const u32 slot = atomic_add32(slots, 1);
          if (slot < slot_capacity)
            slot_key[slot] = key;
          else
            overflow = true;
          atomic_store64(entries + h, (u64{key} << 32) | slot);
          return slot;
        }
        e = prev;
      }
      if (static_cast<u32>(e >> 32) == key) {
        while (static_cast<u32>(e) == slot_pending) e = volatile_load64(entries + h);
        return static_cast<u32>(e);
      }
    }
    overflow = true;
    return 0;
  }

  // Rehash: inserts a published entry of another table (no concurrent claims of the same key).
  SEXTANT_HD void insert_entry(u64 entry) const {
    u64 h = mix32(static_cast<u32>(entry >> 32)) & mask;
    while (atomic_cas64(entries + h, table_empty, entry) != table_empty) h = (h + 1) & mask;
    const u32 slot = static_cast<u32>(entry);
    if (slot < slot_capacity) slot_key[slot] = static_cast<u32>(entry >> 32);
  }
};

// ---- the per-tuple pass ---------------------------------------------------------------------

// Reduced over the tuples of one chunk (device memory; reset per chunk). prepare_kernel
// (stream_gpu_exec.cu) reduces each field by name: a new field needs its line there too.
struct PrepareStats {
  u64 first_negative = no_index;  // lowest tuple index (in the chunk) with ts < 0
  u64 first_above = no_index;     // lowest index with ts > PrepareArgs::max_ts (time windows)
  u64 first_far = no_index;       // lowest index whose pane is too far ahead to pack
  u64 late = 0;
  u64 ignored = 0;
  i64 max_wm = no_wm;
  u64 max_key = 0;  // largest packed key of an accepted tuple (time windows)
  u32 overflow = 0;
  u32 accepted = 0;  // 1 when any tuple was accepted (time windows)

  SEXTANT_HD_INLINE void merge(const PrepareStats& o) {
    first_negative = min_of(first_negative, o.first_negative);
    first_above = min_of(first_above, o.first_above);
    first_far = min_of(first_far, o.first_far);
    late += o.late;
    ignored += o.ignored;
    max_wm = max_of(max_wm, o.max_wm);
    max_key = max_of(max_key, o.max_key);
    overflow |= o.overflow;
    accepted |= o.accepted;
  }
};

// Everything the host reads back from the pane stage, in one struct: one copy per sync.
struct Scalars {
  PrepareStats stats;
  u64 runs = 0;     // reduce-by-key output
  u64 count = 0;    // a count the host needs (released panes)
  u64 pending = 0;  // pending panes after a merge, until the host next needs them
  u32 slots = 0;    // slots handed out by the key table
};

struct Rehash {
  const u64* old_entries;
  KeyTable table;
  SEXTANT_HD void operator()(u64 i) const {
    const u64 e = old_entries[i];
    if (e != table_empty) table.insert_entry(e);
  }
};

struct PrepareArgs {
  bool count_windows = false;
  const u32* keys = nullptr;       // null: every key is 0
  const i64* ts = nullptr;         // null only for count windows
  const i64* wms = nullptr;        // null: no tuple carries one
  const i64* wm_before = nullptr;  // exclusive max-scan of wms seeded with `wm`; null with wms
  i64 wm = no_wm;                  // operator watermark before the chunk
  i64 lateness = 0;
  i64 max_ts = 0;  // time: StreamGeometry::max_timestamp
  i64 pane = 1;
  i64 base = 0;       // time: packed panes are relative to this one (every pending pane is >= it)
  int slot_bits = 0;  // time: low bits of a packed key
  KeyTable table;
  u64* sort_keys = nullptr;  // time: (pane - base) << slot_bits | slot, late_key when dropped
  u32* slots = nullptr;      // count: the tuple's slot
};

// Lateness at arrival is ts + L < wm with wm the watermark before the tuple; written as
// ts < wm - L (wm >= 0 there, so nothing overflows).
SEXTANT_HD_INLINE void prepare_tuple(const PrepareArgs& a, u64 i, PrepareStats& s) {
  const i64 wb = a.wm_before != nullptr ? a.wm_before[i] : a.wm;
  if (a.wms != nullptr) {
    const i64 w = a.wms[i];
    s.max_wm = max_of(s.max_wm, w);
    if (w != no_wm && w < wb) ++s.ignored;
  }
  const i64 ts = a.ts != nullptr ? a.ts[i] : 0;
  if (ts < 0) {
    s.first_negative = min_of(s.first_negative, i);
    if (!a.count_windows) a.sort_keys[i] = late_key;
    return;
  }
  if (!a.count_windows && ts > a.max_ts) {
    s.first_above = min_of(s.first_above, i);
    a.sort_keys[i] = late_key;
    return;
  }
  const u32 key = a.keys != nullptr ? a.keys[i] : 0u;
  bool overflow = false;
  if (a.count_windows) {
    a.slots[i] = a.table.find_or_insert(key, overflow);
    if (overflow) s.overflow = 1;
    return;
  }
  if (wb >= 0 && ts < wb - a.lateness) {
    ++s.late;
    a.sort_keys[i] = late_key;
    return;
  }
  const u32 slot = a.table.find_or_insert(key, overflow);
  if (overflow) s.overflow = 1;
  const i64 rel = ts / a.pane - a.base;
  if (rel < 0 || static_cast<u64>(rel) >= (1ull << (63 - a.slot_bits))) {
    s.first_far = min_of(s.first_far, i);
    a.sort_keys[i] = late_key;
    return;
  }
  const u64 packed = (static_cast<u64>(rel) << a.slot_bits) | slot;
  a.sort_keys[i] = packed;
  s.max_key = max_of(s.max_key, packed);
  s.accepted = 1;
}

// ---- pane partials ----------------------------------------------------------------------------

// A value-only aggregate's values travel through the sorts themselves.
template <StreamAggregate A>
requires ValueLift<A>
struct LiftOp {
  SEXTANT_HD_INLINE Partial<A> operator()(const typename A::Input& x) const {
    return Partial<A>::lift(x, {});
  }
};

// An aggregate that lifts with the timestamp (argmin, argmax, first, last) sorts each tuple's
// index in the chunk instead: the i-th sorted tuple is lifted from the chunk's value and
// timestamp at order[i] (no timestamps, as count windows may omit them: 0).
template <StreamAggregate A>
struct LiftAtOp {
  const u32* order;
  const typename A::Input* values;
  const i64* ts;
  SEXTANT_HD_INLINE Partial<A> operator()(u64 i) const {
    const u32 j = order[i];
    return Partial<A>::lift(values[j], {ts != nullptr ? ts[j] : 0});
  }
};

template <StreamAggregate A>
struct CombineOp {
  SEXTANT_HD_INLINE Partial<A> operator()(const Partial<A>& a, const Partial<A>& b) const {
    return Partial<A>::combine(a, b);
  }
};

// Count reads no values: its partial is the same for every tuple.
template <class A>
inline constexpr bool reads_values = !std::is_same_v<A, CountAggregate<typename A::Input>>;

// ---- pending panes (time windows): sorted, unique packed keys ----------------------------------

// Rank merge of two sorted arrays, unique within each: element i of `a` goes to i + (elements of
// b below it); equal keys end up adjacent, a's first. b's length stays on the device (the
// reduce-by-key that made b wrote it): the merge is launched over na + an upper bound of it, so
// that the host need not wait for the count.
template <StreamAggregate A>
struct MergeRanked {
  const u64* a_keys;
  const Partial<A>* a_parts;
  u64 na;
  const u64* b_keys;
  const Partial<A>* b_parts;
  const u64* nb;
  u64* out_keys;
  Partial<A>* out_parts;

  SEXTANT_HD void operator()(u64 t) const {
    if (t < na) {
      const u64 pos = t + lower_bound_u64(b_keys, *nb, a_keys[t]);
      out_keys[pos] = a_keys[t];
      out_parts[pos] = a_parts[t];
    } else if (const u64 j = t - na; j < *nb) {
      const u64 pos = j + upper_bound_u64(a_keys, na, b_keys[j]);
      out_keys[pos] = b_keys[j];
      out_parts[pos] = b_parts[j];
    }
  }
};

// 1 where a merged key starts a run of equal keys; 0 beyond the na + *nb merged keys.
struct RunHeads {
  const u64* keys;
  u64 na;
  const u64* nb;
  u32* heads;
  SEXTANT_HD void operator()(u64 t) const {
    heads[t] = t < na + *nb && (t == 0 || keys[t] != keys[t - 1]) ? 1u : 0u;
  }
};

// Writes each run of (at most two) equal keys once, combined; `rank` is the inclusive sum of heads.
template <StreamAggregate A>
struct CombineRuns {
  const u64* keys;
  const Partial<A>* parts;
  const u32* heads;
  const u32* rank;
  u64 na;
  const u64* nb;
  u64* out_keys;
  Partial<A>* out_parts;
  SEXTANT_HD void operator()(u64 t) const {
    if (heads[t] == 0) return;
    Partial<A> p = parts[t];
    if (t + 1 < na + *nb && keys[t + 1] == keys[t]) p = Partial<A>::combine(p, parts[t + 1]);
    out_keys[rank[t] - 1] = keys[t];
    out_parts[rank[t] - 1] = p;
  }
};

// Pending keys from `from_bits` to `to_bits` slot bits, shifted down by `delta` panes.
struct Repack {
  u64* keys;
  int from_bits;
  int to_bits;
  u64 delta;
  SEXTANT_HD void operator()(u64 t) const {
    const u64 k = keys[t];
    const u64 slot = k & ((1ull << from_bits) - 1);
    keys[t] = (((k >> from_bits) - delta) << to_bits) | slot;
  }
};

// The pending entries below `limit` (a packed key), counted by binary search.
struct CountBelow {
  const u64* keys;
  u64 n;
  u64 limit;
  u64* out;
  SEXTANT_HD void operator()(u64) const { *out = lower_bound_u64(keys, n, limit); }
};

// CountBelow over the *n entries a merge left on the device: one read brings both counts back.
struct CountBelowPending {
  const u64* keys;
  const u64* n;
  u64 limit;
  u64* out;
  SEXTANT_HD void operator()(u64) const { *out = lower_bound_u64(keys, *n, limit); }
};

// The last inclusive-scan value of a merge over na + *nb keys (none: 0), where the host can read
// it later with other scalars.
struct StoreLast {
  const u32* scan;
  u64 na;
  const u64* nb;
  u64* out;
  SEXTANT_HD void operator()(u64) const {
    const u64 m = na + *nb;
    *out = m == 0 ? 0 : scan[m - 1];
  }
};

// *out = *in: a count the device made, kept where the host reads it later.
struct CopyCount {
  const u64* in;
  u64* out;
  SEXTANT_HD void operator()(u64) const { *out = *in; }
};

// Released entries [0, released) unpacked for the window stage; the rest rebased by `delta`.
template <StreamAggregate A>
struct ReleaseUnpack {
  u64* keys;
  const Partial<A>* parts;
  u64 released;
  int slot_bits;
  i64 base;
  u64 delta;
  u32* out_slot;
  i64* out_pane;
  Partial<A>* out_parts;
  SEXTANT_HD void operator()(u64 t) const {
    const u64 k = keys[t];
    if (t < released) {
      out_slot[t] = static_cast<u32>(k & ((1ull << slot_bits) - 1));
      out_pane[t] = base + static_cast<i64>(k >> slot_bits);
      out_parts[t] = parts[t];
    } else {
      keys[t] = k - (delta << slot_bits);
    }
  }
};

// ---- count windows -------------------------------------------------------------------------

// Inclusive max-scan input: the index of a segment's first element, else 0.
struct SegmentHead {
  const u32* slots;
  SEXTANT_HD_INLINE u32 operator()(u64 t) const {
    return t == 0 || slots[t] != slots[t - 1] ? static_cast<u32>(t) : 0u;
  }
};

// Run key of a tuple: slot << 32 | its pane minus the slot's current pane. The tuples of a slot
// are in arrival order (stable sort), so positions continue the slot's count.
struct CountRunKey {
  const u32* slots;
  const u32* segment_start;  // null: one segment
  const i64* tuples;         // per slot, before this chunk
  i64 pane;
  u64* out;
  SEXTANT_HD void operator()(u64 t) const {
    const u32 slot = slots[t];
    const i64 before = tuples[slot];
    const i64 rank =
        static_cast<i64>(t) - (segment_start != nullptr ? static_cast<i64>(segment_start[t]) : 0);
    out[t] = (u64{slot} << 32) | static_cast<u64>((before + rank) / pane - before / pane);
  }
};

// Per run: its absolute pane, the partial merged with the slot's open pane, and whether the
// pane is full now (state untouched here: CountCommit writes it after every run has read it).
template <StreamAggregate A>
struct CountMergeRuns {
  const u64* run_keys;
  Partial<A>* run_parts;  // in place
  const i64* tuples;
  const Partial<A>* open;
  i64 pane;
  i64* run_pane;
  u32* full;
  SEXTANT_HD void operator()(u64 r) const {
    const u32 slot = static_cast<u32>(run_keys[r] >> 32);
    const u64 off = run_keys[r] & 0xFFFFFFFFull;
    const i64 before = tuples[slot];
    Partial<A> p = run_parts[r];
    if (off == 0 && before % pane != 0) p = Partial<A>::combine(open[slot], p);
    run_parts[r] = p;
    run_pane[r] = before / pane + static_cast<i64>(off);
    full[r] = p.tuples == pane ? 1u : 0u;
  }
};

// The last run of each slot sets the slot's count and its open (partial) pane.
template <StreamAggregate A>
struct CountCommit {
  const u64* run_keys;
  const Partial<A>* run_parts;
  const i64* run_pane;
  u64 runs;
  i64 pane;
  i64* tuples;
  Partial<A>* open;
  SEXTANT_HD void operator()(u64 r) const {
    const u32 slot = static_cast<u32>(run_keys[r] >> 32);
    if (r + 1 < runs && static_cast<u32>(run_keys[r + 1] >> 32) == slot) return;
    tuples[slot] = run_pane[r] * pane + run_parts[r].tuples;
    open[slot] = run_parts[r];
  }
};

// Appends the full runs (rank = inclusive sum of `full`) to the closed list at `at`.
template <StreamAggregate A>
struct CountAppendClosed {
  const u64* run_keys;
  const Partial<A>* run_parts;
  const i64* run_pane;
  const u32* full;
  const u32* rank;
  u64 at;
  u32* out_slot;
  i64* out_pane;
  Partial<A>* out_parts;
  SEXTANT_HD void operator()(u64 r) const {
    if (full[r] == 0) return;
    const u64 pos = at + rank[r] - 1;
    out_slot[pos] = static_cast<u32>(run_keys[r] >> 32);
    out_pane[pos] = run_pane[r];
    out_parts[pos] = run_parts[r];
  }
};

// ---- window stage: entries sorted by (slot, pane) -----------------------------------------------

SEXTANT_HD_INLINE bool entry_less(u32 sa, i64 pa, u32 sb, i64 pb) {
  return sa < sb || (sa == sb && pa < pb);
}

template <StreamAggregate A>
struct GatherEntries {
  const u32* perm;
  const u32* slot;
  const i64* pane;
  const Partial<A>* parts;
  u32* out_slot;
  i64* out_pane;
  Partial<A>* out_parts;
  SEXTANT_HD void operator()(u64 t) const {
    const u32 p = perm[t];
    out_slot[t] = slot[p];
    out_pane[t] = pane[p];
    out_parts[t] = parts[p];
  }
};

// Merge of two sorted, disjoint entry lists (carry and new) into the leaves; `appended` when
// every entry of a precedes every entry of b (one key, or one list empty): no search.
template <StreamAggregate A>
struct MergeEntries {
  const u32* a_slot;
  const i64* a_pane;
  const Partial<A>* a_parts;
  u64 na;
  const u32* b_slot;
  const i64* b_pane;
  const Partial<A>* b_parts;
  u64 nb;
  u32* out_slot;
  i64* out_pane;
  Partial<A>* out_parts;
  bool appended;
  SEXTANT_HD void operator()(u64 t) const {
    if (appended) {
      out_slot[t] = t < na ? a_slot[t] : b_slot[t - na];
      out_pane[t] = t < na ? a_pane[t] : b_pane[t - na];
      out_parts[t] = t < na ? a_parts[t] : b_parts[t - na];
    } else if (t < na) {
      const u32 s = a_slot[t];
      const i64 p = a_pane[t];
      const u64 pos =
          t + lower_bound_by(0, nb, [&](u64 j) { return entry_less(b_slot[j], b_pane[j], s, p); });
      out_slot[pos] = s;
      out_pane[pos] = p;
      out_parts[pos] = a_parts[t];
    } else {
      const u64 j = t - na;
      const u32 s = b_slot[j];
      const i64 p = b_pane[j];
      const u64 pos =
          j + lower_bound_by(0, na, [&](u64 i) { return entry_less(a_slot[i], a_pane[i], s, p); });
      out_slot[pos] = s;
      out_pane[pos] = p;
      out_parts[pos] = b_parts[j];
    }
  }
};

// B-PAT levels, stored contiguously: level l holds ceil(n / 2^l) nodes from offset[l].
inline constexpr int max_tree_levels = 48;

template <StreamAggregate A>
struct TreeView {
  Partial<A>* nodes = nullptr;
  int levels = 0;
  u64 offset[max_tree_levels] = {};
  u64 size[max_tree_levels] = {};

  // Combine of leaves [i, j): aligned blocks, largest first, at most two per level.
  SEXTANT_HD Partial<A> range(u64 i, u64 j) const {
    Partial<A> acc = Partial<A>::identity();
    while (i < j) {
      int l = min_of(trailing_zeros64(i), levels - 1);
      while ((1ull << l) > j - i) --l;
      acc = Partial<A>::combine(acc, nodes[offset[l] + (i >> l)]);
      i += 1ull << l;
    }
    return acc;
  }
};

template <StreamAggregate A>
struct BuildLevel {
  Partial<A>* below;
  u64 below_size;
  Partial<A>* level;
  SEXTANT_HD void operator()(u64 x) const {
    const u64 l = 2 * x, r = 2 * x + 1;
    level[x] = r < below_size ? Partial<A>::combine(below[l], below[r]) : below[l];
  }
};

// One window specification in panes and in its own units.
struct SpecPanes {
  u32 index = 0;
  i64 w = 1;  // panes per window
  i64 s = 1;  // panes per slide
  i64 length = 1;
  i64 slide = 1;

  SEXTANT_HD_INLINE i64 first_window(i64 p) const {
    const i64 lo = p - w + 1;
    return lo <= 0 ? 0 : (lo + s - 1) / s;
  }
  SEXTANT_HD_INLINE i64 last_window(i64 p) const { return p / s; }
  // Windows whose end pane k*s + w lies in (fired, frontier].
  SEXTANT_HD_INLINE i64 first_firing(i64 fired) const { return fired < w ? 0 : (fired - w) / s + 1; }
  SEXTANT_HD_INLINE i64 last_firing(i64 frontier) const { return frontier < w ? -1 : (frontier - w) / s; }
};

// Where each slot stands: time windows share one frontier, count windows have one per slot.
struct Frontiers {
  i64 fired = 0;                     // time: windows ending at or below this pane were emitted
  i64 frontier = 0;                  // time: every pane below is closed
  const i64* slot_fired = nullptr;   // count: per slot, in panes
  const i64* slot_tuples = nullptr;  // count: per slot; frontier = tuples / pane
  i64 pane = 1;

  SEXTANT_HD_INLINE i64 fired_of(u32 slot) const { return slot_fired != nullptr ? slot_fired[slot] : fired; }
  SEXTANT_HD_INLINE i64 frontier_of(u32 slot) const {
    return slot_tuples != nullptr ? slot_tuples[slot] / pane : frontier;
  }
};

// The windows of a spec that leaf e is the first non-empty pane of and that fire now: [lo, hi].
struct OwnedWindows {
  i64 lo;
  i64 hi;
};

SEXTANT_HD_INLINE OwnedWindows owned_windows(const u32* slot, const i64* pane, u64 e, const SpecPanes& g,
                                             const Frontiers& f) {
  const u32 s = slot[e];
  const i64 p = pane[e];
  i64 lo = g.first_window(p);
  if (e > 0 && slot[e - 1] == s) lo = max_of(lo, g.last_window(pane[e - 1]) + 1);
  lo = max_of(lo, g.first_firing(f.fired_of(s)));
  const i64 hi = min_of(g.last_window(p), g.last_firing(f.frontier_of(s)));
  return {lo, hi};
}

// Per leaf: windows owned (for the scan); `keep` |= still needed by a window that fires later.
struct CountOwned {
  const u32* slot;
  const i64* pane;
  SpecPanes g;
  Frontiers f;
  u64* count;
  u32* keep;
  bool first_spec;
  SEXTANT_HD void operator()(u64 e) const {
    const OwnedWindows o = owned_windows(slot, pane, e, g, f);
    count[e] = o.hi >= o.lo ? static_cast<u64>(o.hi - o.lo + 1) : 0;
    const i64 p = pane[e];
    const u32 needed = g.last_window(p) * g.s + g.w > f.frontier_of(slot[e]) ? 1u : 0u;
    keep[e] = first_spec ? needed : (keep[e] | needed);
  }
};

// One thread per window that fires: find its first leaf by the scan of counts, its end by
// binary search within the next w leaves, combine the range on the tree.
// Fired windows as columns in exec memory (the layout of WindowColumns).
template <class Output>
struct ResultColumnsView {
  using Value = typename OutputValue<Output>::type;
  u32* spec = nullptr;
  u32* key = nullptr;
  i64* start = nullptr;
  i64* end = nullptr;
  Value* value = nullptr;
  i64* at = nullptr;  // Selected outputs only
  SEXTANT_HD void set(u64 i, u32 sp, u32 k, i64 s, i64 e, const Output& v) const {
    spec[i] = sp;
    key[i] = k;
    start[i] = s;
    end[i] = e;
    if constexpr (std::is_same_v<Output, Value>) {
      value[i] = v;
    } else {
      value[i] = v.value;
      at[i] = v.at;
    }
  }
};

template <StreamAggregate A>
struct FillWindows {
  const u32* slot;
  const i64* pane;
  u64 n;
  const u64* offsets;  // inclusive sum of the owned counts
  TreeView<A> tree;
  SpecPanes g;
  Frontiers f;
  const u32* slot_key;
  u64 first;  // window index of row 0 of out
  ResultColumnsView<typename A::Output> out;
  u64* unrepresentable;  // the lowest i whose accumulator cannot be lowered (no_index: none)
  SEXTANT_HD void operator()(u64 i) const {
    const u64 t = first + i;
    const u64 e = upper_bound_u64(offsets, n, t);
    const OwnedWindows o = owned_windows(slot, pane, e, g, f);
    const i64 k = o.lo + static_cast<i64>(t - (e > 0 ? offsets[e - 1] : 0));
    const u32 s = slot[e];
    const i64 end_pane = k * g.s + g.w;
    const u64 hi = min_of(n, e + static_cast<u64>(g.w));
    const u64 j = lower_bound_by(e + 1, hi, [&](u64 x) { return entry_less(slot[x], pane[x], s, end_pane); });
    const Partial<A> acc = tree.range(e, j);
    out.set(i, g.index, slot_key[s], k * g.slide, k * g.slide + g.length, A::lower(acc.acc));
    if (!representable<A>(acc.acc)) atomic_min64(unrepresentable, i);
  }
};

template <StreamAggregate A>
struct KeepEntries {
  const u32* slot;
  const i64* pane;
  const Partial<A>* parts;
  const u32* keep;
  const u32* rank;  // inclusive sum of keep
  u32* out_slot;
  i64* out_pane;
  Partial<A>* out_parts;
  SEXTANT_HD void operator()(u64 e) const {
    if (keep[e] == 0) return;
    const u64 pos = rank[e] - 1;
    out_slot[pos] = slot[e];
    out_pane[pos] = pane[e];
    out_parts[pos] = parts[e];
  }
};

struct SlotFired {
  const i64* tuples;
  i64 pane;
  i64* fired;
  SEXTANT_HD void operator()(u64 s) const { fired[s] = tuples[s] / pane; }
};

// ---- generic --------------------------------------------------------------------------------

template <class T>
struct Fill {
  T* out;
  T value;
  SEXTANT_HD void operator()(u64 i) const { out[i] = value; }
};

struct Iota {
  u32* out;
  SEXTANT_HD void operator()(u64 i) const { out[i] = static_cast<u32>(i); }
};

}  // namespace sextant::window::detail::stream_gpu
