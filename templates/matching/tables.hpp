// The matching tables the template owns (paper 002, section 3.1; table_view.hpp): the name and
// interface dictionaries shared by every shard, the filter ids, and the shards themselves (one
// normally; several when filters are partitioned over GPUs: filter f lives in shard
// hash(f.id) mod shards, and every event is matched against every shard).
//
// add and remove validate everything before changing anything: a rejected change (Error::argument
// naming the filter id, the constraint and the problem) leaves the tables as they were. Not
// thread-safe: the Matcher (api/matcher.hpp) serialises changes and batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "templates/matching/columns.hpp"
#include "templates/matching/model.hpp"
#include "templates/matching/shard.hpp"

namespace sextant::matching {

class MatchTables {
 public:
  explicit MatchTables(std::uint32_t shards = 1);

  // Adds every filter of `set` (all or nothing): throws Error::argument for an invalid filter, an
  // id already present or repeated in the set.
  void add(const FilterSet& set);
  void add(const Filter& filter);
  // Removes filters by id (all or nothing): throws Error::argument for an unknown id or one
  // repeated in the list.
  void remove(std::span<const FilterId> ids);
  void remove(FilterId id) { remove(std::span<const FilterId>(&id, 1)); }
  void clear();

  // Throws Error::argument (nothing changes) when add(set) would.
  void check_add(const FilterSet& set) const;
  void check_remove(std::span<const FilterId> ids) const;

  bool contains(FilterId id) const { return ids_.contains(id); }
  std::size_t size() const noexcept { return ids_.size(); }
  std::size_t constraints() const noexcept;
  std::size_t bytes() const noexcept;

  const NameDictionary& names() const noexcept { return names_; }
  // Dense interface indices 0 .. interface_count() - 1 in first-seen order.
  std::uint32_t interface_count() const noexcept { return static_cast<std::uint32_t>(interfaces_.size()); }
  InterfaceId interface_id(std::uint32_t dense) const { return interfaces_[dense]; }
  // True while dense order is the order of the ids (results then need no sort).
  bool interfaces_in_order() const noexcept { return interfaces_in_order_; }

  std::uint32_t shard_count() const noexcept { return static_cast<std::uint32_t>(shards_.size()); }
  const Shard& shard(std::uint32_t i) const { return shards_[i]; }
  Shard& shard(std::uint32_t i) { return shards_[i]; }
  FilterId filter_id(std::uint32_t shard, FilterSlot slot) const { return slot_ids_[shard][slot]; }

  // The key a filter with these (global) names is filed under, with the current name
  // frequencies: its only name, or its two rarest (ties: smaller id).
  std::uint64_t key_for(std::span<const NameId> names) const;
  std::uint32_t shard_for(FilterId id) const noexcept;

 private:
  struct Location {
    std::uint32_t shard;
    FilterSlot slot;
  };
  NameDictionary names_;
  std::vector<std::uint64_t> name_constraints_;  // constraints per name id (for key choice)
  std::unordered_map<InterfaceId, std::uint32_t> interface_index_;
  std::vector<InterfaceId> interfaces_;
  bool interfaces_in_order_ = true;
  std::unordered_map<FilterId, Location> ids_;
  std::vector<std::vector<FilterId>> slot_ids_;  // per shard, by slot
  std::vector<Shard> shards_;
};

}  // namespace sextant::matching
