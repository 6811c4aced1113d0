// The matching template's hooks (paper 002, section 3: OCM on cores, CCM on GPUs). One concept
// for every device: a hook matches events [begin, end) of a prepared batch against every shard of
// the tables, sets each event's interface bits and, on request, reports the matched filters. The
// template (match_template.hpp) hands event ranges to the hooks of every device through a
// DeviceTeam and turns the bits into results.
//
// Exactness: the Bloom scan only prunes; a filter matches only when its count of satisfied
// constraints reaches its size (page_eval.hpp), each (event, constraint) counted at most once.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "templates/matching/table_view.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::matching {

// A matched filter: event (index in the batch), shard and slot (the template maps it to its id).
struct FilterHit {
  std::uint32_t event = 0;
  std::uint32_t shard = 0;
  FilterSlot slot = 0;
};

// One batch as a hook sees it (host memory). The bitmaps are zeroed by the template; bit d of
// event i's words is dense interface d (MatchTables::interface_id).
struct MatchBatch {
  const MatchTables* tables = nullptr;  // read-only while the batch runs
  std::span<const ShardView> shards;    // host views of the tables' shards
  EventsView events;
  std::uint64_t* bitmaps = nullptr;  // events.size * words
  std::uint32_t words = 0;
  std::uint32_t interfaces = 0;  // dense interfaces in the tables
  bool want_filters = false;     // report every matched filter (else an event may stop
                                 // early once every interface matched)
};

// Sets the bits of events [begin, end) in batch.bitmaps and, with want_filters, appends their
// hits to `hits`. Safe to re-run on the same range (bits are ORed; hits are de-duplicated by the
// template).
template <class H>
concept MatchHook = requires(H& h, const MatchBatch& batch, std::uint32_t begin, std::uint32_t end,
                             std::vector<FilterHit>& hits) {
  { H::name } -> std::convertible_to<std::string_view>;
  { H::device_kind } -> std::convertible_to<DeviceKind>;
  h.match(batch, begin, end, hits);
};

// A hook with a copy of the tables in its device's memory: sync brings it up to date with the
// tables' delta (ShardChanges) before a batch; `shards` lists the shards it holds and matches (all
// of them, or one when filters are partitioned over GPUs).
template <class H>
concept SyncedMatchHook = MatchHook<H> &&
    requires(H& h, const MatchTables& tables, std::span<const std::uint32_t> shards) {
  h.sync(tables, shards);
};

}  // namespace sextant::matching
