#include "templates/matching/prepared_events.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace sextant::matching {

namespace {

[[noreturn]] void bad_event(EventId id, std::uint64_t attribute, const std::string& what) {
  throw Error::argument("event " + std::to_string(id) + " attribute " + std::to_string(attribute), "(batch)",
                        "a finite number, a bool, a string within the batch's bytes", what);
}

}  // namespace

void PreparedEvents::prepare(const EventBatch& batch, std::size_t begin, std::size_t end,
                             const MatchTables& tables) {
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
  // Names are looked up on first use in the range: one event of a large batch costs only the
  // lookups of its own names.
  translate_.assign(batch.names.size(), not_looked_up);
  name_bits_.resize(batch.names.size());

  const std::size_t n = end - begin;
  ids_.assign(batch.ids.begin() + static_cast<std::ptrdiff_t>(begin),
              batch.ids.begin() + static_cast<std::ptrdiff_t>(end));
  // Sized for every attribute up front and trimmed at the end: the loop writes through pointers
  // (this pass is the caller's serial share of a batch on every device).
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
  std::uint32_t* const name_begin = name_begin_.data();
  std::uint32_t* const group_begin = group_begin_.data();
  NameId* const names = names_.data();
  EventGroup* const groups = groups_.data();
  std::uint64_t* const value_a = value_a_.data();
  std::uint64_t* const value_b = value_b_.data();
  std::uint32_t name_count = 0, group_count = 0, value_count = 0;
  name_begin[0] = 0;
  group_begin[0] = 0;

  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t e = begin + i;
    pending_.clear();
    keys_.clear();
    std::uint64_t bloom = 0;  // OR over the attributes: a repeated name sets the same bits
    for (std::uint64_t a = batch.offsets[e]; a < batch.offsets[e + 1]; ++a) {
      const std::uint32_t local = batch.attribute_name[a];
      if (local >= translate_.size())
        bad_event(batch.ids[e], a - batch.offsets[e], "a name outside the dictionary");
      if (translate_[local] == not_looked_up) {
        const auto id = tables.names().find(batch.names.name(local));
        translate_[local] = id ? *id : no_name;
        if (id) name_bits_[local] = name_bit(*id);
      }
      const RawValue v = batch.attribute_value[a];
      Pending p{translate_[local], 0, v.a, 0};
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
      bloom |= name_bits_[local];
      // (name, class, position) in one word: one comparison per step of the sort, and equal
      // (name, class) keep their order.
      keys_.push_back(std::uint64_t{p.name} << 32 | std::uint64_t{p.cls} << 24 | pending_.size());
      pending_.push_back(p);
    }
    const std::size_t count = pending_.size();
    std::uint64_t* const key = keys_.data();
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
      std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& x, const Pending& y) {
        return x.name != y.name ? x.name < y.name : x.cls < y.cls;
      });
      for (std::size_t k = 0; k < count; ++k)
        key[k] = std::uint64_t{pending_[k].name} << 32 | std::uint64_t{pending_[k].cls} << 24;
    }
    const Pending* const pend = pending_.data();
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
  names_.resize(name_count);
  groups_.resize(group_count);
  value_a_.resize(value_count);
  value_b_.resize(value_count);
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
