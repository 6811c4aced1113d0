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

  const std::size_t n = end - begin;
  ids_.assign(batch.ids.begin() + static_cast<std::ptrdiff_t>(begin),
              batch.ids.begin() + static_cast<std::ptrdiff_t>(end));
  name_begin_.resize(n + 1);
  group_begin_.resize(n + 1);
  bloom_.resize(n);
  names_.clear();
  groups_.clear();
  value_a_.clear();
  value_b_.clear();
  strings_ = batch.strings.data();
  string_bytes_ = batch.strings.size();
  name_begin_[0] = 0;
  group_begin_[0] = 0;

  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t e = begin + i;
    pending_.clear();
    for (std::uint64_t a = batch.offsets[e]; a < batch.offsets[e + 1]; ++a) {
      const std::uint32_t local = batch.attribute_name[a];
      if (local >= translate_.size())
        bad_event(batch.ids[e], a - batch.offsets[e], "a name outside the dictionary");
      const RawValue v = batch.attribute_value[a];
      if (translate_[local] == not_looked_up) {
        const auto id = tables.names().find(batch.names.name(local));
        translate_[local] = id ? *id : no_name;
      }
      Pending p{translate_[local], 0, 0, 0};
      switch (batch.attribute_type[a]) {
        case ValueType::int64:
          p.cls = static_cast<std::uint32_t>(TypeClass::numeric);
          p.a = v.a;
          p.b = 0;
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
          p.a = v.a;
          break;
        case ValueType::string:
          if (v.a > batch.strings.size() || v.b > batch.strings.size() - v.a)
            bad_event(batch.ids[e], a - batch.offsets[e], "a string outside the batch's bytes");
          p.cls = static_cast<std::uint32_t>(TypeClass::string);
          p.a = v.a;
          p.b = v.b;
          break;
        default:
          bad_event(batch.ids[e], a - batch.offsets[e], "an unknown value type");
      }
      if (p.name != no_name) pending_.push_back(p);
    }
    // Events hold a few attributes: insertion sort by (name, class).
    for (std::size_t k = 1; k < pending_.size(); ++k) {
      const Pending x = pending_[k];
      std::size_t j = k;
      while (j > 0 && (pending_[j - 1].name > x.name ||
                       (pending_[j - 1].name == x.name && pending_[j - 1].cls > x.cls))) {
        pending_[j] = pending_[j - 1];
        --j;
      }
      pending_[j] = x;
    }
    std::uint64_t bloom = 0;
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      const Pending& p = pending_[k];
      const auto at = static_cast<std::uint32_t>(value_a_.size());
      value_a_.push_back(p.a);
      value_b_.push_back(p.b);
      if (k == 0 || pending_[k - 1].name != p.name) {
        names_.push_back(p.name);
        bloom |= name_bit(p.name);
      }
      if (k == 0 || pending_[k - 1].name != p.name || pending_[k - 1].cls != p.cls)
        groups_.push_back(EventGroup{p.name, p.cls, at, 0});
      ++groups_.back().count;
    }
    bloom_[i] = bloom;
    name_begin_[i + 1] = static_cast<std::uint32_t>(names_.size());
    group_begin_[i + 1] = static_cast<std::uint32_t>(groups_.size());
  }
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
