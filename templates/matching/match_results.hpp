// What matching a batch yields: per event (in batch order) its id, its matched interfaces
// (sorted) and, on request, the ids of its matched filters (sorted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "templates/matching/hooks.hpp"
#include "templates/matching/model.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::matching {

struct MatchResults {
  std::vector<EventId> events;
  std::vector<std::uint64_t> interface_offsets{0};
  std::vector<InterfaceId> interfaces;
  bool has_filters = false;
  std::vector<std::uint64_t> filter_offsets{0};  // with has_filters
  std::vector<FilterId> filters;

  std::size_t size() const noexcept { return events.size(); }
  std::span<const InterfaceId> interfaces_of(std::size_t i) const noexcept {
    return std::span(interfaces)
        .subspan(interface_offsets[i], interface_offsets[i + 1] - interface_offsets[i]);
  }
  std::span<const FilterId> filters_of(std::size_t i) const noexcept {
    if (!has_filters) return {};
    return std::span(filters).subspan(filter_offsets[i], filter_offsets[i + 1] - filter_offsets[i]);
  }
  void clear();
};

// Appends the results of one batch: events `ids`, their bitmaps (words per event) and the hits
// of every worker (de-duplicated here: a re-run chunk may report a filter twice).
void append_results(const MatchTables& tables, std::span<const EventId> ids, const std::uint64_t* bitmaps,
                    std::uint32_t words, std::span<std::vector<FilterHit>> hits, bool want_filters,
                    MatchResults& out);

}  // namespace sextant::matching
