#include "templates/matching/match_results.hpp"

#include <algorithm>
#include <bit>

namespace sextant::matching {

void MatchResults::clear() {
  events.clear();
  interface_offsets.assign(1, 0);
  interfaces.clear();
  has_filters = false;
  filter_offsets.assign(1, 0);
  filters.clear();
}

void append_results(const MatchTables& tables, std::span<const EventId> ids, const std::uint64_t* bitmaps,
                    std::uint32_t words, std::span<std::vector<FilterHit>> hits, bool want_filters,
                    MatchResults& out) {
  const std::size_t n = ids.size();
  if (out.events.empty()) out.has_filters = want_filters;
  out.events.insert(out.events.end(), ids.begin(), ids.end());
  const bool sorted = tables.interfaces_in_order();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t first = out.interfaces.size();
    for (std::uint32_t w = 0; w < words; ++w) {
      for (std::uint64_t bits = bitmaps[i * words + w]; bits != 0; bits &= bits - 1)
        out.interfaces.push_back(
            tables.interface_id(w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits))));
    }
    if (!sorted) std::sort(out.interfaces.begin() + static_cast<std::ptrdiff_t>(first), out.interfaces.end());
    out.interface_offsets.push_back(out.interfaces.size());
  }
  if (!out.has_filters) return;
  // Group the hits by event (counting sort), then sort and de-duplicate each event's ids.
  std::vector<std::uint64_t> start(n + 1, 0);
  for (const auto& worker : hits)
    for (const FilterHit& h : worker) ++start[h.event + 1];
  for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<FilterId> grouped(start[n]);
  std::vector<std::uint64_t> at(start.begin(), start.end() - 1);
  for (const auto& worker : hits)
    for (const FilterHit& h : worker) grouped[at[h.event]++] = tables.filter_id(h.shard, h.slot);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = grouped.begin() + static_cast<std::ptrdiff_t>(start[i]);
    const auto e = grouped.begin() + static_cast<std::ptrdiff_t>(start[i + 1]);
    std::sort(b, e);
    out.filters.insert(out.filters.end(), b, std::unique(b, e));
    out.filter_offsets.push_back(out.filters.size());
  }
}

}  // namespace sextant::matching
