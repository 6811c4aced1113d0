#include "templates/matching/prepared_events.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "templates/matching/matching_policy.hpp"

namespace sextant::matching {

namespace {

[[noreturn]] void bad_event(EventId id, std::uint64_t attribute, const std::string& what) {
  throw Error::argument("event " + std::to_string(id) + " attribute " + std::to_string(attribute), "(batch)",
                        "a finite number, a bool, a string within the batch's bytes", what);
}

}  // namespace

void PreparedEvents::prepare(const EventBatch& batch, std::size_t begin, std::size_t end,
                             const MatchTables& tables, ParallelParts* threads) {
  if (begin > end || end > batch.size() || batch.offsets.size() != batch.size() + 1 ||
      batch.attribute_type.size() != batch.attribute_name.size() ||
      batch.attribute_value.size() != batch.attribute_name.size() ||
      batch.offsets.back() != batch.attributes())
    throw Error::argument("events", "(batch)", "consistent columns and a range within the batch",
                          "inconsistent event columns");
  const std::uint64_t first = batch.offsets[begin], last = batch.offsets[end];
  if (last - first >= 0xFFFFFFFFull || end - begin >= 0xFFFFFFFFull)
    throw Error::argument("events", std::to_string(last - first) + " attributes", "fewer than 2^32 per batch",
                          "a batch too large; split it");
  const std::size_t n = end - begin;
  ids_.assign(batch.ids.begin() + static_cast<std::ptrdiff_t>(begin),
              batch.ids.begin() + static_cast<std::ptrdiff_t>(end));
  // Sized for every attribute up front and trimmed at the end: the parts write through pointers.
  const std::size_t attributes = last - first;
  name_begin_.resize(n + 1);
  group_begin_.resize(n + 1);
  bloom_.resize(n);
  names_.resize(attributes);
  groups_.resize(attributes);
  value_a_.resize(attributes);
  value_b_.resize(attributes);
  strings_ = batch.strings.data();
  string_bytes_ = batch.strings.size();
  name_begin_[0] = 0;
  group_begin_[0] = 0;

  const std::size_t most = threads != nullptr ? static_cast<std::size_t>(threads->helpers()) + 1 : 1;
  const std::size_t count = std::max<std::size_t>(1, std::min(most, n / policy::Batches::min_prepare_part));
  if (parts_.size() < count) parts_.resize(count);
  for (std::size_t p = 0; p < count; ++p) {
    parts_[p].begin = begin + n * p / count;
    parts_[p].end = begin + n * (p + 1) / count;
    parts_[p].at = static_cast<std::uint32_t>(batch.offsets[parts_[p].begin] - first);
  }
  const auto one = [&](int p) { prepare_part(batch, begin, tables, parts_[static_cast<std::size_t>(p)]); };
  if (threads != nullptr)
    threads->run(static_cast<int>(count), one);
  else
    one(0);
  close_up(count);
}

void PreparedEvents::prepare_part(const EventBatch& batch, std::size_t first_event, const MatchTables& tables,
                                  Part& part) {
  // Names are looked up on first use in the part: one event of a large batch costs only the
  // lookups of its own names.
  part.translate.assign(batch.names.size(), not_looked_up);
  part.name_bits.resize(batch.names.size());
  std::uint32_t* const name_begin = name_begin_.data();
  std::uint32_t* const group_begin = group_begin_.data();
  NameId* const names = names_.data();
  EventGroup* const groups = groups_.data();
  std::uint64_t* const value_a = value_a_.data();
  std::uint64_t* const value_b = value_b_.data();
  NameId* const translate = part.translate.data();
  std::uint64_t* const name_bits = part.name_bits.data();
  std::vector<Pending>& pending = part.pending;
  std::vector<std::uint64_t>& keys = part.keys;
  std::uint32_t name_count = part.at, group_count = part.at, value_count = part.at;

  for (std::size_t e = part.begin; e < part.end; ++e) {
    const std::size_t i = e - first_event;
    pending.clear();
    keys.clear();
    std::uint64_t bloom = 0;  // OR over the attributes: a repeated name sets the same bits
    for (std::uint64_t a = batch.offsets[e]; a < batch.offsets[e + 1]; ++a) {
      const std::uint32_t local = batch.attribute_name[a];
      if (local >= part.translate.size())
        bad_event(batch.ids[e], a - batch.offsets[e], "a name outside the dictionary");
      if (translate[local] == not_looked_up) {
        const auto id = tables.names().find(batch.names.name(local));
        translate[local] = id ? *id : no_name;
        if (id) name_bits[local] = name_bit(*id);
      }
      const RawValue v = batch.attribute_value[a];
      Pending p{translate[local], 0, v.a, 0};
      switch (batch.attribute_type[a]) {
        case ValueType::int64:
          p.cls = static_cast<std::uint32_t>(TypeClass::numeric);
          break;
        case ValueType::float64: {
          const double d = std::bit_cast<double>(v.a);
          if (!std::isfinite(d))
            bad_event(batch.ids[e], a - batch.offsets[e], "NaN and infinities are not values");
          const RawValue k = raw(num_key(d));
          p.cls = static_cast<std::uint32_t>(TypeClass::numeric);
          p.a = k.a;
          p.b = k.b;
          break;
        }
        case ValueType::boolean:
          if (v.a > 1) bad_event(batch.ids[e], a - batch.offsets[e], "a bool is 0 or 1");
          p.cls = static_cast<std::uint32_t>(TypeClass::boolean);
          break;
        case ValueType::string:
          if (v.a > batch.strings.size() || v.b > batch.strings.size() - v.a)
            bad_event(batch.ids[e], a - batch.offsets[e], "a string outside the batch's bytes");
          p.cls = static_cast<std::uint32_t>(TypeClass::string);
          p.b = v.b;
          break;
        default:
          bad_event(batch.ids[e], a - batch.offsets[e], "an unknown value type");
      }
      if (p.name == no_name) continue;
      bloom |= name_bits[local];
      // (name, class, position) in one word: one comparison per step of the sort, and equal
      // (name, class) keep their order.
      keys.push_back(std::uint64_t{p.name} << 32 | std::uint64_t{p.cls} << 24 | pending.size());
      pending.push_back(p);
    }
    const std::size_t count = pending.size();
    std::uint64_t* const key = keys.data();
    if (count <= rank_sort_limit) {  // events hold a few attributes: each key's rank, no branches
      std::uint64_t sorted[rank_sort_limit];
      for (std::size_t k = 0; k < count; ++k) {
        std::size_t rank = 0;
        for (std::size_t j = 0; j < count; ++j) rank += key[j] < key[k] ? 1 : 0;
        sorted[rank] = key[k];  // keys differ in their position bits: ranks are distinct
      }
      std::copy(sorted, sorted + count, key);
    } else if (count < key_positions) {
      std::sort(key, key + count);
    } else {  // 2^24 attributes or more: the position does not fit the key
      std::stable_sort(pending.begin(), pending.end(), [](const Pending& x, const Pending& y) {
        return x.name != y.name ? x.name < y.name : x.cls < y.cls;
      });
      for (std::size_t k = 0; k < count; ++k)
        key[k] = std::uint64_t{pending[k].name} << 32 | std::uint64_t{pending[k].cls} << 24;
    }
    const Pending* const pend = pending.data();
    std::uint64_t previous = ~std::uint64_t{0};  // (name, class) of the last attribute
    for (std::size_t k = 0; k < count; ++k) {
      const Pending& p = pend[count < key_positions ? key[k] & (key_positions - 1) : k];
      const std::uint32_t at = value_count++;
      value_a[at] = p.a;
      value_b[at] = p.b;
      const std::uint64_t name_class = key[k] >> 24;
      if (name_class != previous) {
        if ((name_class >> 8) != (previous >> 8)) names[name_count++] = p.name;
        groups[group_count++] = EventGroup{p.name, p.cls, at, 0};
        previous = name_class;
      }
      ++groups[group_count - 1].count;
    }
    bloom_[i] = bloom;
    name_begin[i + 1] = name_count;
    group_begin[i + 1] = group_count;
  }
  part.names = name_count - part.at;
  part.groups = group_count - part.at;
  part.values = value_count - part.at;
}

// Moves every part's names, groups and values down to follow the previous part's, in order (a
// part may move into the room the previous one left), and rebases its offsets. Nothing moves where
// no attribute was dropped and no name repeated.
void PreparedEvents::close_up(std::size_t count) {
  const std::size_t first_event = parts_.front().begin;
  std::uint32_t names = 0, groups = 0, values = 0;
  for (std::size_t p = 0; p < count; ++p) {
    const Part& part = parts_[p];
    const std::uint32_t name_shift = part.at - names, group_shift = part.at - groups,
                        value_shift = part.at - values;
    if (name_shift != 0) {
      std::memmove(names_.data() + names, names_.data() + part.at, part.names * sizeof(NameId));
      for (std::size_t e = part.begin; e < part.end; ++e) name_begin_[e - first_event + 1] -= name_shift;
    }
    if (value_shift != 0) {
      std::memmove(value_a_.data() + values, value_a_.data() + part.at, part.values * sizeof(std::uint64_t));
      std::memmove(value_b_.data() + values, value_b_.data() + part.at, part.values * sizeof(std::uint64_t));
      for (std::uint32_t g = part.at; g < part.at + part.groups; ++g) groups_[g].begin -= value_shift;
    }
    if (group_shift != 0) {
      std::memmove(groups_.data() + groups, groups_.data() + part.at, part.groups * sizeof(EventGroup));
      for (std::size_t e = part.begin; e < part.end; ++e) group_begin_[e - first_event + 1] -= group_shift;
    }
    names += part.names;
    groups += part.groups;
    values += part.values;
  }
  names_.resize(names);
  groups_.resize(groups);
  value_a_.resize(values);
  value_b_.resize(values);
}

EventsView PreparedEvents::view() const noexcept {
  EventsView v;
  v.size = size();
  v.name_begin = name_begin_.data();
  v.names = names_.data();
  v.group_begin = group_begin_.data();
  v.groups = groups_.data();
  v.value_a = value_a_.data();
  v.value_b = value_b_.data();
  v.strings = strings_;
  v.bloom = bloom_.data();
  return v;
}

}  // namespace sextant::matching
