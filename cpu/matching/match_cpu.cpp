// The CPU matching hook's event loop (instruction-set free; the Bloom scan it calls is the
// variant's, match_cpu_kernel.hpp). Per event and shard: probe the keys of the event's single
// names and name pairs (or, for events with very many names, walk the key table), scan every
// page of each key's chain, count the survivors' constraints, set the matched interfaces' bits.
#include "cpu/matching/match_cpu.hpp"

#include <bit>
#include <string>

#include "core/error.hpp"
#include "cpu/matching/match_cpu_kernel.hpp"
#include "templates/matching/matching_policy.hpp"
#include "templates/matching/page_eval.hpp"

namespace sextant::matching::detail {

template <>
std::uint64_t BloomScan<cpu::ScalarIsa>::survivors(const std::uint64_t* blooms, std::uint32_t count,
                                                   std::uint64_t event_bloom) noexcept {
  return bloom_survivors(blooms, count, event_bloom);
}

void refuse_isa(std::string_view name) {
  throw Error::unsupported("the " + std::string(name) +
                           " matching kernel cannot run on this CPU (or SEXTANT_SIMD rules it out)");
}

namespace {

// One event's state while its pages are visited.
struct EventState {
  const MatchBatch* batch;
  const ShardView* table;
  std::uint32_t shard;
  std::uint32_t event;
  std::uint64_t bloom;
  std::uint64_t* bits;
  std::uint32_t matched;       // interfaces set so far
  std::uint64_t matched_bits;  // bit d % 64 of each (exact with at most 64 interfaces)
  std::vector<FilterHit>* hits;

  bool done() const noexcept { return !batch->want_filters && matched == batch->interfaces; }
  // Whether every interface of the page has matched already (SFF's purge of matched interfaces).
  bool nothing_new(const PageMeta& page) const noexcept {
    return !batch->want_filters && batch->interfaces <= 64 && (page.interfaces & ~matched_bits) == 0;
  }
};

template <class Isa>
void visit_chain(EventState& s, PageId p) {
  const ShardView& t = *s.table;
  for (; p != no_page; p = t.pages[p].next) {
    if (s.nothing_new(t.pages[p])) continue;
    const std::uint64_t at = static_cast<std::uint64_t>(p) * policy::page_filters;
    const std::uint64_t survivors = BloomScan<Isa>::survivors(t.filter_bloom + at, t.pages[p].count, s.bloom);
    if (survivors == 0) continue;
    const std::uint64_t complete = complete_filters(t, p, s.batch->events, s.event, survivors);
    for (std::uint64_t c = complete; c != 0; c &= c - 1) {
      const auto f = static_cast<std::uint32_t>(std::countr_zero(c));
      const std::uint32_t d = t.filter_interface[at + f];
      std::uint64_t& word = s.bits[d / 64];
      const std::uint64_t bit = std::uint64_t{1} << (d % 64);
      if ((word & bit) == 0) {
        word |= bit;
        ++s.matched;
        s.matched_bits |= std::uint64_t{1} << (d % 64);
      }
      if (s.batch->want_filters) s.hits->push_back({s.event, s.shard, t.filter_slot[at + f]});
    }
    if (s.done()) return;
  }
}

bool holds(const NameId* names, std::uint32_t count, NameId n) noexcept {
  std::uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (names[mid] < n)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && names[lo] == n;
}

template <class Isa>
void match_event(EventState& s) {
  const EventsView& ev = s.batch->events;
  const NameId* names = ev.names + ev.name_begin[s.event];
  const std::uint32_t k = ev.name_begin[s.event + 1] - ev.name_begin[s.event];
  const ShardView& t = *s.table;
  if (k == 0 || t.key_count == 0) return;
  if (k < policy::pair_probe_names) {
    for (std::uint32_t i = 0; i < k && !s.done(); ++i) {
      if (const PageId p = find_key(t, single_key(names[i])); p != no_page) visit_chain<Isa>(s, p);
      for (std::uint32_t j = i + 1; j < k && !s.done(); ++j)
        if (const PageId p = find_key(t, pair_key(names[i], names[j])); p != no_page) visit_chain<Isa>(s, p);
    }
    return;
  }
  // Many names: k (k - 1) / 2 probes would cost more than one pass over the key table.
  for (std::uint64_t i = 0; i <= t.key_mask && !s.done(); ++i) {
    const KeySlot& slot = t.keys[i];
    if (slot.key == empty_key || !holds(names, k, key_first(slot.key))) continue;
    const NameId second = key_second(slot.key);
    if (second != no_name && !holds(names, k, second)) continue;
    visit_chain<Isa>(s, slot.first);
  }
}

}  // namespace

template <class Isa>
void match_events_cpu(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end,
                      std::vector<FilterHit>& hits) {
  for (std::uint32_t e = begin; e < end; ++e) {
    std::uint64_t* bits = batch.bitmaps + static_cast<std::uint64_t>(e) * batch.words;
    for (std::uint32_t w = 0; w < batch.words; ++w) bits[w] = 0;  // a re-run range starts afresh
    EventState s{&batch, nullptr, 0, e, batch.events.bloom[e], bits, 0, 0, &hits};
    for (std::uint32_t shard = 0; shard < batch.shards.size() && !s.done(); ++shard) {
      s.table = &batch.shards[shard];
      s.shard = shard;
      match_event<Isa>(s);
    }
  }
}

template void match_events_cpu<cpu::ScalarIsa>(const MatchBatch&, std::uint32_t, std::uint32_t,
                                               std::vector<FilterHit>&);
template void match_events_cpu<cpu::Avx2Isa>(const MatchBatch&, std::uint32_t, std::uint32_t,
                                             std::vector<FilterHit>&);
template void match_events_cpu<cpu::Avx512Isa>(const MatchBatch&, std::uint32_t, std::uint32_t,
                                               std::vector<FilterHit>&);

}  // namespace sextant::matching::detail
