// The hot loops of the CPU pane stage, per instruction set: one pass over a shard's slice of
// a batch that drops late tuples, counts ignored watermarks and adds every other tuple to its
// pending pane. Per tuple: a key lookup (none for unkeyed streams), a multiply-shift division
// by the pane length, a range check against the key's ring and an in-place combine; the late
// threshold follows the running watermark. Every test is a predicted branch in the common case
// (not late, inside the ring, an existing pane, a watermark that does not go down); everything
// rare is a call to PaneShard's out-of-line paths.
//   unkeyed: the ring stays in registers; AVX2 adds runs of 8 tuples of one pane at once.
//   keyed:   blocks of 512 in three passes (ids by AVX2 gathers, pane ids, accumulation with
//            slot prefetch), each loop small enough to keep its state in registers.
//
// Included by stream_pane_kernel_{avx2,scalar}.cpp (instantiated there for the built-ins) and
// by stream_pane_stage_cpu.hpp (user-defined aggregates, scalar only).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "cpu/simd/isa.hpp"
#include "cpu/window/stream_pane_shard.hpp"

namespace sextant::window::detail {

template <class V>
struct PaneInput {
  const StreamKey* keys = nullptr;  // null: every tuple has key 0
  const std::int64_t* timestamps = nullptr;
  const V* values = nullptr;
  const std::int64_t* watermarks = nullptr;  // null: no tuple carries one
  std::size_t size = 0;
};

struct PaneTally {
  std::uint64_t late = 0;
  std::uint64_t ignored = 0;
  std::int64_t watermark = 0;  // in: the operator watermark before the slice; out: after it
};

// What the validation pass finds in a slice: its smallest and largest timestamps and its largest
// watermark.
struct SliceScan {
  std::int64_t min_ts = 0;
  std::int64_t max_wm = 0;
  std::int64_t max_ts = 0;
};

template <class Isa>
SliceScan scan_slice(const std::int64_t* timestamps, const std::int64_t* watermarks, std::size_t n);

// Whether a slice is in order after its first tuple: timestamps and watermarks (when given) never
// go down and no tuple is late against the watermark before it, so that tuples 1.. are all
// accepted and none of their watermarks is ignored. Tuple 0 against the operator's watermark is
// the caller's test.
template <class Isa>
bool in_order_slice(const std::int64_t* timestamps, const std::int64_t* watermarks, std::size_t n,
                    std::int64_t lateness);

// Time windows: late test, pane id from the timestamp. Count windows: pane id from the key's
// running tuple count.
template <StreamAggregate A, class Isa>
void accumulate_slice(PaneShard<A>& shard, const PaneInput<typename A::Input>& in, const PaneDivider& div,
                      std::int64_t lateness, bool count_windows, PaneTally& tally);

namespace kernel {

// Adds one lifted value (timestamp ts) to pane `pane` of key `id`. Returns true when the key's
// ring may have moved (the slow path ran), so that a caller caching it reloads. Value-only
// aggregates never read ts.
template <StreamAggregate A>
[[gnu::always_inline]] inline bool add_to_pane(PaneShard<A>& s, std::uint32_t id, std::int64_t lo,
                                               std::uint64_t mask, Partial<A>* slots, std::int64_t pane,
                                               typename A::Input v, std::int64_t ts) {
  if (static_cast<std::uint64_t>(pane) - static_cast<std::uint64_t>(lo) <= mask) [[likely]] {
    Partial<A>& p = slots[static_cast<std::uint64_t>(pane) & mask];
    // A pending pane's `tuples` only says that it is not empty (all the window stage needs):
    // counting every tuple would cost a second read-modify-write per tuple.
    if (p.tuples == 0) [[unlikely]] {
      s.new_pane(id, pane);
      p.tuples = 1;
    }
    p.acc = A::combine(p.acc, lift<A>(v, {ts}));
    return false;
  }
  s.place(id, pane, Partial<A>::lift(v, {ts}));
  return true;
}

// Late iff ts < threshold, i.e. ts + L < wm, without overflow for wm = no_watermark.
[[gnu::always_inline]] inline std::int64_t late_threshold(std::int64_t wm, std::int64_t lateness) {
  return wm > lateness ? wm - lateness : 0;
}

// The watermark after a tuple's own: the running maximum; a lower one (not no_watermark) is
// ignored and counted. Branchy: a source's watermarks rarely go down.
[[gnu::always_inline]] inline void follow_watermark(std::int64_t w, std::int64_t lateness, std::int64_t& wm,
                                                    std::int64_t& threshold, std::uint64_t& ignored) {
  if (w >= wm) [[likely]] {
    wm = w;
    threshold = late_threshold(w, lateness);
  } else if (w != no_watermark) {
    ++ignored;
  }
}

// Ids of keys[0..n) (KeyIndex::absent for a key not seen yet). AVX2: 8 direct-table lookups
// per gather; keys beyond the direct table go through the hash table one by one.
template <class Isa>
[[gnu::always_inline]] inline void lookup_keys(const KeyIndex& index, const StreamKey* __restrict keys,
                                               std::size_t n, std::uint32_t* __restrict ids) {
  const std::uint32_t* direct = index.direct();
  const std::uint64_t direct_size = index.direct_size();
  std::size_t j = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<Isa, cpu::Avx2Isa>) {
    if (direct_size > 0) {
      const __m256i last = _mm256_set1_epi32(static_cast<int>(direct_size - 1));
      const __m256i absent = _mm256_set1_epi32(-1);
      for (; j + 8 <= n; j += 8) {
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + j));
        const __m256i inside = _mm256_cmpeq_epi32(_mm256_min_epu32(k, last), k);  // k <= last, unsigned
        const __m256i found =
            _mm256_mask_i32gather_epi32(absent, reinterpret_cast<const int*>(direct), k, inside, 4);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(ids + j), found);
        if (_mm256_movemask_epi8(inside) != -1) [[unlikely]]
          for (std::size_t l = j; l < j + 8; ++l)
            if (keys[l] >= direct_size) ids[l] = index.find_hashed(keys[l]);
      }
    }
  }
#endif
  for (; j < n; ++j) ids[j] = keys[j] < direct_size ? direct[keys[j]] : index.find_hashed(keys[j]);
}

#if defined(__AVX2__)
// AVX2: 8 tuples at once when they form a run: one pane, none late, watermarks that do not go
// down (the in-order part of a stream). Returns false, having changed nothing, otherwise.
[[gnu::always_inline]] inline __m256i max_epi64(__m256i a, __m256i b) {
  return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
}

template <StreamAggregate A, bool HasWm>
[[gnu::always_inline]] inline bool add_run8(PaneShard<A>& s, std::uint32_t id, std::int64_t lo,
                                            std::uint64_t mask, Partial<A>* slots, const PaneDivider& div,
                                            std::int64_t lateness, const std::int64_t* __restrict ts,
                                            const typename A::Input* __restrict values,
                                            const std::int64_t* __restrict wms, bool wm_safe,
                                            std::int64_t& wm, std::int64_t& threshold) {
  const std::int64_t x0 = ts[0], p = div.divisor();
  if (x0 < threshold || x0 > INT64_MAX - p) return false;
  const std::int64_t pane = div(x0);
  if (static_cast<std::uint64_t>(pane) - static_cast<std::uint64_t>(lo) > mask) return false;
  // Each tuple must reach its pane's start and its own late threshold: with watermarks, that of
  // the watermark before it (the one before the run, then w0 .. w6), late_threshold(w) =
  // max(w, L) - L; without, the run's.
  const __m256i start = _mm256_set1_epi64x(pane * p);
  __m256i low0 = _mm256_set1_epi64x(std::max(threshold, pane * p));
  __m256i low1 = low0;
  __m256i bad = _mm256_setzero_si256();
  if constexpr (HasWm) {
    // Watermarks w0 >= wm, w[k+1] >= w[k] (reads w8: the caller guarantees it exists), so the
    // watermark before tuple k is w[k-1]: no running maximum to take.
    if (!wm_safe || wms[0] < wm) return false;
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wms));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wms + 4));
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wms + 1));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wms + 5));
    const __m256i first7 = _mm256_set_epi64x(0, -1, -1, -1);
    bad = _mm256_or_si256(_mm256_cmpgt_epi64(a0, b0), _mm256_and_si256(_mm256_cmpgt_epi64(a1, b1), first7));
    const __m256i before0 = _mm256_blend_epi32(_mm256_permute4x64_epi64(a0, _MM_SHUFFLE(2, 1, 0, 0)),
                                               _mm256_set1_epi64x(wm), 0x03);               // wm, w0, w1, w2
    const __m256i before1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wms + 3));  // w3 .. w6
    const __m256i l = _mm256_set1_epi64x(lateness);
    low0 = max_epi64(_mm256_sub_epi64(max_epi64(before0, l), l), start);
    low1 = max_epi64(_mm256_sub_epi64(max_epi64(before1, l), l), start);
  }
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256i above = _mm256_set1_epi64x(pane * p + p);  // ts < above
  const __m256i t0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ts));
  const __m256i t1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ts + 4));
  const __m256i in0 =
      _mm256_and_si256(_mm256_cmpgt_epi64(t0, _mm256_sub_epi64(low0, one)), _mm256_cmpgt_epi64(above, t0));
  const __m256i in1 =
      _mm256_and_si256(_mm256_cmpgt_epi64(t1, _mm256_sub_epi64(low1, one)), _mm256_cmpgt_epi64(above, t1));
  const __m256i out =
      _mm256_or_si256(bad, _mm256_andnot_si256(_mm256_and_si256(in0, in1), _mm256_set1_epi64x(-1)));
  if (!_mm256_testz_si256(out, out)) return false;
  typename A::Acc acc = lift<A>(values[0], {ts[0]});
  for (int k = 1; k < 8; ++k) acc = A::combine(acc, lift<A>(values[k], {ts[k]}));
  Partial<A>& slot = slots[static_cast<std::uint64_t>(pane) & mask];
  if (slot.tuples == 0) {
    s.new_pane(id, pane);
    slot.tuples = 1;
  }
  slot.acc = A::combine(slot.acc, acc);
  if constexpr (HasWm) {
    wm = wms[7];
    threshold = late_threshold(wm, lateness);
  }
  return true;
}
#endif

// The loops are templated on Isa (distinct symbols per instruction set) and flattened (every
// call with a visible body is inlined), so that the AVX2 translation unit emits no out-of-line
// function that the linker could pick for scalar code.
// One key for the whole slice: `key` (0 for a stream without keys).
template <StreamAggregate A, class Isa, bool HasWm>
[[gnu::flatten]] void unkeyed_time_slice(PaneShard<A>& s, const PaneInput<typename A::Input>& in,
                                         const PaneDivider div, const std::int64_t lateness, PaneTally& tally,
                                         const StreamKey key = 0) {
  const std::int64_t* __restrict ts = in.timestamps;
  const auto* __restrict values = in.values;
  const std::int64_t* __restrict wms = in.watermarks;
  const std::size_t n = in.size;
  std::int64_t wm = tally.watermark;
  std::int64_t threshold = late_threshold(wm, lateness);
  std::uint64_t late = 0, ignored = 0;
  std::uint32_t id = s.find(key);
  if (id == KeyIndex::absent) id = s.add_key(key);
  // The one ring lives in registers; stores to its slots cannot be proved not to alias its
  // header, so it is reloaded only when the slow path may have moved it.
  std::int64_t lo = s.hot(id).lo;
  std::uint64_t mask = s.hot(id).mask;
  Partial<A>* slots = s.hot(id).slots;
  const auto step = [&](std::size_t i) {
    const std::int64_t x = ts[i];
    if (x >= threshold) [[likely]] {
      if (add_to_pane<A>(s, id, lo, mask, slots, div(x), values[i], x)) [[unlikely]] {
        lo = s.hot(id).lo;
        mask = s.hot(id).mask;
        slots = s.hot(id).slots;
      }
    } else {
      ++late;
    }
    if constexpr (HasWm) follow_watermark(wms[i], lateness, wm, threshold, ignored);
  };
  std::size_t i = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<Isa, cpu::Avx2Isa>) {
    // Runs of 8, backing off exponentially (up to 64 blocks) while the stream is disordered.
    unsigned backoff = 0, skip = 0;
    while (i + 8 <= n) {
      if (skip == 0) {
        if (add_run8<A, HasWm>(s, id, lo, mask, slots, div, lateness, ts + i, values + i,
                               HasWm ? wms + i : nullptr, i + 9 <= n, wm, threshold)) {
          i += 8;
          backoff = 0;
          continue;
        }
        backoff = std::min(backoff + 1, 6u);
        skip = 1u << backoff;
      }
      --skip;
      for (const std::size_t e = i + 8; i < e; ++i) step(i);
    }
  }
#endif
  for (; i < n; ++i) step(i);
  tally.late += late;
  tally.ignored += ignored;
  tally.watermark = wm;
}

// Keyed streams, in blocks: (1) every key's id (AVX2 gathers), (2) every pane id, (3) the
// accumulation, which prefetches the slot of tuple j + ahead while it adds tuple j. Splitting
// the passes keeps each loop's state in registers, and the prefetch overlaps the misses of
// rings that outgrow L2 (many keys, large disorder).
template <StreamAggregate A, class Isa, bool HasWm>
[[gnu::flatten]] void keyed_time_slice(PaneShard<A>& s, const PaneInput<typename A::Input>& in,
                                       const PaneDivider div, const std::int64_t lateness, PaneTally& tally) {
  constexpr std::size_t block = 512, ahead = 16;
  alignas(64) std::int64_t panes[block];
  alignas(64) std::uint32_t ids[block];
  const std::int64_t* __restrict ts = in.timestamps;
  const auto* __restrict values = in.values;
  const std::int64_t* __restrict wms = in.watermarks;
  const StreamKey* __restrict keys = in.keys;
  std::int64_t wm = tally.watermark;
  std::int64_t threshold = late_threshold(wm, lateness);
  std::uint64_t late = 0, ignored = 0;
  // Ring headers outgrow L2 beyond ~8K keys (32 bytes each): prefetch them too.
  const bool deep = s.keys() > 8192;
  for (std::size_t b = 0; b < in.size; b += block) {
    const std::size_t m = std::min(block, in.size - b);
    lookup_keys<Isa>(s.index(), keys + b, m, ids);
    for (std::size_t j = 0; j < m; ++j) panes[j] = div(ts[b + j]);
    auto* hot = s.hot_data();
    for (std::size_t j = 0; j < m; ++j) {
      // The slot of tuple j + ahead (and, with many keys, the ring header of j + 2 ahead).
      if (deep && j + 2 * ahead < m && ids[j + 2 * ahead] != KeyIndex::absent)
        __builtin_prefetch(hot + ids[j + 2 * ahead]);
      if (j + ahead < m && ids[j + ahead] != KeyIndex::absent) {
        const auto& h = hot[ids[j + ahead]];
        __builtin_prefetch(h.slots + (static_cast<std::uint64_t>(panes[j + ahead]) & h.mask), 1);
      }
      if (ts[b + j] >= threshold) [[likely]] {
        std::uint32_t id = ids[j];
        if (id == KeyIndex::absent) [[unlikely]] {  // a new key, or one added earlier in the block
          id = s.find(keys[b + j]);
          if (id == KeyIndex::absent) id = s.add_key(keys[b + j]);
          hot = s.hot_data();
        }
        const auto& h = hot[id];
        add_to_pane<A>(s, id, h.lo, h.mask, h.slots, panes[j], values[b + j], ts[b + j]);
      } else {
        ++late;
      }
      if constexpr (HasWm) follow_watermark(wms[b + j], lateness, wm, threshold, ignored);
    }
  }
  tally.late += late;
  tally.ignored += ignored;
  tally.watermark = wm;
}

template <StreamAggregate A, class Isa, bool Keyed, bool HasWm>
[[gnu::flatten]] void count_slice(PaneShard<A>& s, const PaneInput<typename A::Input>& in,
                                  const PaneDivider div, PaneTally& tally) {
  std::int64_t wm = tally.watermark, unused_threshold = 0;  // count windows: nothing is late
  std::uint64_t ignored = 0;
  for (std::size_t i = 0; i < in.size; ++i) {
    const StreamKey key = Keyed ? in.keys[i] : 0;
    std::uint32_t id = s.find(key);
    if (id == KeyIndex::absent) [[unlikely]]
      id = s.add_key(key);
    auto& h = s.hot(id);
    const std::int64_t pane = div(h.count++);
    add_to_pane<A>(s, id, h.lo, h.mask, h.slots, pane, in.values[i], in.timestamps[i]);
    if constexpr (HasWm) follow_watermark(in.watermarks[i], 0, wm, unused_threshold, ignored);
  }
  tally.ignored += ignored;
  tally.watermark = wm;
}

// Whether every key of the slice is keys[0]: a keyed stream that carries one key (or a slice of
// one key's tuples) then takes the one-key loop. Blocks of 64, so the test vectorises and a stream
// of many keys stops after the first block. A template on Isa (and inlined) like the loops below.
template <class Isa>
[[gnu::always_inline]] inline bool one_key(const StreamKey* keys, std::size_t n) {
  const StreamKey k = keys[0];
  for (std::size_t b = 0; b < n; b += 64) {
    StreamKey diff = 0;
    for (std::size_t i = b, e = std::min(n, b + 64); i < e; ++i) diff |= keys[i] ^ k;
    if (diff != 0) return false;
  }
  return true;
}

}  // namespace kernel

template <class Isa>
[[gnu::flatten]] SliceScan scan_slice(const std::int64_t* timestamps, const std::int64_t* watermarks,
                                      std::size_t n) {
  // Plain reductions: the compiler vectorises them with the TU's instruction set.
  std::int64_t lo = 0, top = 0, hi = no_watermark;
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::min(lo, timestamps[i]);
    top = std::max(top, timestamps[i]);
  }
  if (watermarks != nullptr)
    for (std::size_t i = 0; i < n; ++i) hi = std::max(hi, watermarks[i]);
  return {lo, hi, top};
}

template <class Isa>
[[gnu::flatten]] bool in_order_slice(const std::int64_t* ts, const std::int64_t* wms, std::size_t n,
                                     std::int64_t lateness) {
  std::size_t i = 1;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<Isa, cpu::Avx2Isa>) {
    // Branch-free blocks; a disordered slice stops at its first block.
    constexpr std::size_t block = 256;
    const __m256i l = _mm256_set1_epi64x(lateness);
    const auto load = [](const std::int64_t* p) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    };
    while (i + 4 <= n) {
      const std::size_t e = std::min(n - 3, i + block);
      __m256i bad = _mm256_setzero_si256();
      for (; i < e; i += 4) {
        const __m256i t = load(ts + i);
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(load(ts + i - 1), t));
        if (wms != nullptr) {
          const __m256i before = load(wms + i - 1);
          const __m256i threshold = _mm256_sub_epi64(kernel::max_epi64(before, l), l);  // late_threshold
          bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(before, load(wms + i)),
                                                     _mm256_cmpgt_epi64(threshold, t)));
        }
      }
      if (!_mm256_testz_si256(bad, bad)) return false;
    }
  }
#endif
  for (; i < n; ++i)
    if (ts[i] < ts[i - 1] ||
        (wms != nullptr && (wms[i] < wms[i - 1] || ts[i] < kernel::late_threshold(wms[i - 1], lateness))))
      return false;
  return true;
}

// An in-order slice of one key (timestamps ascending, n >= 1) as pane partials: one per run of
// tuples of one pane, in pane order. Returns how many.
template <StreamAggregate A>
std::size_t reduce_in_order(const std::int64_t* __restrict ts, const typename A::Input* __restrict values,
                            std::size_t n, const PaneDivider& div, std::int64_t* __restrict panes,
                            Partial<A>* __restrict partials) {
  std::size_t k = 0;
  std::int64_t pane = div(ts[0]);
  Partial<A> acc = Partial<A>::lift(values[0], {ts[0]});
  for (std::size_t i = 1; i < n; ++i) {
    const std::int64_t p = div(ts[i]);
    const Partial<A> x = Partial<A>::lift(values[i], {ts[i]});
    if (p != pane) {
      panes[k] = pane;
      partials[k++] = acc;
      pane = p;
      acc = x;
    } else {
      acc = Partial<A>::combine(acc, x);
    }
  }
  panes[k] = pane;
  partials[k++] = acc;
  return k;
}

template <StreamAggregate A, class Isa>
void accumulate_slice(PaneShard<A>& shard, const PaneInput<typename A::Input>& in, const PaneDivider& div,
                      std::int64_t lateness, bool count_windows, PaneTally& tally) {
  const bool keyed = in.keys != nullptr, has_wm = in.watermarks != nullptr;
  if (count_windows) {
    if (keyed)
      has_wm ? kernel::count_slice<A, Isa, true, true>(shard, in, div, tally)
             : kernel::count_slice<A, Isa, true, false>(shard, in, div, tally);
    else
      has_wm ? kernel::count_slice<A, Isa, false, true>(shard, in, div, tally)
             : kernel::count_slice<A, Isa, false, false>(shard, in, div, tally);
    return;
  }
  if (keyed && !(in.size > 0 && kernel::one_key<Isa>(in.keys, in.size)))
    has_wm ? kernel::keyed_time_slice<A, Isa, true>(shard, in, div, lateness, tally)
           : kernel::keyed_time_slice<A, Isa, false>(shard, in, div, lateness, tally);
  else if (keyed)
    has_wm ? kernel::unkeyed_time_slice<A, Isa, true>(shard, in, div, lateness, tally, in.keys[0])
           : kernel::unkeyed_time_slice<A, Isa, false>(shard, in, div, lateness, tally, in.keys[0]);
  else
    has_wm ? kernel::unkeyed_time_slice<A, Isa, true>(shard, in, div, lateness, tally)
           : kernel::unkeyed_time_slice<A, Isa, false>(shard, in, div, lateness, tally);
}

}  // namespace sextant::window::detail
