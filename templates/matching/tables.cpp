#include "templates/matching/tables.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_set>

#include "core/error.hpp"

namespace sextant::matching {

MatchTables::MatchTables(std::uint32_t shards) {
  if (shards == 0) throw Error::argument("shards", "0", "1 or more");
  shards_.resize(shards);
  slot_ids_.resize(shards);
}

void MatchTables::clear() {
  names_.clear();
  name_constraints_.clear();
  interface_index_.clear();
  interfaces_.clear();
  interfaces_in_order_ = true;
  ids_.clear();
  for (auto& s : slot_ids_) s.clear();
  for (Shard& s : shards_) s.clear();
}

std::size_t MatchTables::constraints() const noexcept {
  std::size_t n = 0;
  for (const Shard& s : shards_) n += s.constraints();
  return n;
}

std::size_t MatchTables::bytes() const noexcept {
  std::size_t n = ids_.size() * 32 + interfaces_.size() * 24;
  for (const Shard& s : shards_) n += s.bytes();
  for (const auto& s : slot_ids_) n += s.capacity() * sizeof(FilterId);
  return n;
}

std::uint32_t MatchTables::shard_for(FilterId id) const noexcept {
  return static_cast<std::uint32_t>(mix_key(id) % shards_.size());
}

std::uint64_t MatchTables::key_for(std::span<const NameId> names) const {
  // names: distinct, any order.
  const auto frequency = [&](NameId n) { return n < name_constraints_.size() ? name_constraints_[n] : 0; };
  const auto rarer = [&](NameId a, NameId b) {
    const auto fa = frequency(a), fb = frequency(b);
    return fa < fb || (fa == fb && a < b);
  };
  if (names.size() == 1) return single_key(names[0]);
  NameId first = names[0], second = names[1];
  if (rarer(second, first)) std::swap(first, second);
  for (std::size_t i = 2; i < names.size(); ++i) {
    if (rarer(names[i], first)) {
      second = first;
      first = names[i];
    } else if (rarer(names[i], second)) {
      second = names[i];
    }
  }
  return first < second ? pair_key(first, second) : pair_key(second, first);
}

void MatchTables::check_add(const FilterSet& set) const {
  set.check("filters");
  for (std::size_t i = 0; i < set.size(); ++i)
    if (ids_.contains(set.ids[i]))
      throw Error::argument("filter " + std::to_string(set.ids[i]), "(add)", "an id not in the matcher",
                            "a duplicate filter id");
}

void MatchTables::check_remove(std::span<const FilterId> ids) const {
  std::unordered_set<FilterId> seen;
  for (const FilterId id : ids) {
    if (!ids_.contains(id))
      throw Error::argument("filter " + std::to_string(id), "(remove)", "the id of a filter in the matcher",
                            "an unknown filter id");
    if (!seen.insert(id).second)
      throw Error::argument("filter " + std::to_string(id), "(remove)", "each id once",
                            "an id removed twice");
  }
}

void MatchTables::add(const Filter& filter) {
  FilterSet set;
  set.add(filter);  // validates
  add(set);
}

void MatchTables::add(const FilterSet& set) {
  check_add(set);
  // Name frequencies first, so that a bulk load files its filters under the names that are rare in
  // the whole load.
  std::vector<NameId> global(set.names.size());
  for (std::uint32_t i = 0; i < set.names.size(); ++i) {
    const std::uint32_t id = names_.intern(set.names.name(i));
    if (id >= 0xFFFFFFFEu) throw Error(ErrorKind::resource, "matching tables: more than 2^32 - 2 names");
    global[i] = id;
  }
  if (name_constraints_.size() < names_.size()) name_constraints_.resize(names_.size(), 0);
  for (const std::uint32_t n : set.constraint_name) ++name_constraints_[global[n]];
  std::vector<ShardConstraint> scratch;
  std::vector<NameId> distinct;
  for (std::size_t i = 0; i < set.size(); ++i) {
    scratch.clear();
    distinct.clear();
    for (std::uint64_t c = set.offsets[i]; c < set.offsets[i + 1]; ++c) {
      ShardConstraint k;
      k.name = global[set.constraint_name[c]];
      k.op = set.constraint_op[c];
      if (k.op == Op::exists) {
        k.cls = TypeClass::any;
      } else {
        const ValueType type = set.constraint_type[c];
        const RawValue v = set.constraint_value[c];
        k.cls = class_of(type);
        if (type == ValueType::int64)
          k.value = raw(num_key(static_cast<std::int64_t>(v.a)));
        else if (type == ValueType::float64)
          k.value = raw(num_key(std::bit_cast<double>(v.a)));
        else if (type == ValueType::boolean)
          k.value = {v.a, 0};
        else
          k.text = set.string_of(v);
      }
      scratch.push_back(k);
      if (std::find(distinct.begin(), distinct.end(), k.name) == distinct.end()) distinct.push_back(k.name);
    }
    const InterfaceId external = set.interfaces[i];
    auto [it, added] = interface_index_.try_emplace(external, static_cast<std::uint32_t>(interfaces_.size()));
    if (added) {
      if (!interfaces_.empty() && external < interfaces_.back()) interfaces_in_order_ = false;
      interfaces_.push_back(external);
    }
    const FilterId id = set.ids[i];
    const std::uint32_t s = shard_for(id);
    const FilterSlot slot = shards_[s].insert(key_for(distinct), it->second, scratch);
    if (slot_ids_[s].size() <= slot) slot_ids_[s].resize(slot + 1);
    slot_ids_[s][slot] = id;
    ids_.emplace(id, Location{s, slot});
  }
}

void MatchTables::remove(std::span<const FilterId> ids) {
  check_remove(ids);
  for (const FilterId id : ids) {
    const auto it = ids_.find(id);
    const Location at = it->second;
    for (const ShardConstraint& c : shards_[at.shard].constraints_of(at.slot)) --name_constraints_[c.name];
    shards_[at.shard].erase(at.slot);
    ids_.erase(it);
  }
}

}  // namespace sextant::matching
