#include "templates/matching/columns.hpp"

#include <bit>
#include <cmath>
#include <unordered_set>

#include "core/error.hpp"

namespace sextant::matching {

std::uint32_t NameDictionary::intern(std::string_view name) {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  const auto index = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  index_.emplace(names_.back(), index);
  return index;
}

std::optional<std::uint32_t> NameDictionary::find(std::string_view name) const {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  return std::nullopt;
}

void NameDictionary::clear() {
  names_.clear();
  index_.clear();
}

RawValue column_value(const Value& v, std::string& arena) {
  switch (v.type()) {
    case ValueType::int64:
      return {static_cast<std::uint64_t>(v.as_int()), 0};
    case ValueType::float64:
      return {std::bit_cast<std::uint64_t>(v.as_double()), 0};
    case ValueType::boolean:
      return {v.as_bool() ? 1u : 0u, 0};
    case ValueType::string: {
      const RawValue out{arena.size(), v.as_string().size()};
      arena += v.as_string();
      return out;
    }
  }
  return {};
}

Value model_value(ValueType type, RawValue raw, std::string_view arena) {
  switch (type) {
    case ValueType::int64:
      return Value::integer(static_cast<std::int64_t>(raw.a));
    case ValueType::float64:
      return Value::real(std::bit_cast<double>(raw.a));
    case ValueType::boolean:
      return Value::boolean(raw.a != 0);
    case ValueType::string:
      return Value::text(std::string(arena.substr(raw.a, raw.b)));
  }
  return {};
}

namespace {

// Why a column value is unusable ("" when fine).
std::string raw_problem(ValueType type, RawValue v, std::size_t arena_bytes) {
  switch (type) {
    case ValueType::int64:
      return {};
    case ValueType::float64: {
      const double d = std::bit_cast<double>(v.a);
      if (std::isnan(d)) return "NaN is not a value";
      if (std::isinf(d)) return "infinities are not values";
      return {};
    }
    case ValueType::boolean:
      return v.a <= 1 ? "" : "a bool is 0 or 1";
    case ValueType::string:
      return v.a <= arena_bytes && v.b <= arena_bytes - v.a ? "" : "a string outside the string bytes";
  }
  return "an unknown value type";
}

bool known_type(ValueType t) noexcept {
  return static_cast<std::uint8_t>(t) <= static_cast<std::uint8_t>(ValueType::string);
}

}  // namespace

void FilterSet::add(const Filter& filter) {
  validate(filter);
  for (const Constraint& c : filter.constraints) {
    const std::uint32_t name = names.intern(c.name);
    if (c.op == Op::exists)
      add_constraint(name, c.op, ValueType::int64, {});
    else
      add_constraint(name, c.op, c.value.type(), column_value(c.value, strings));
  }
  end_filter(filter.id, filter.interface);
}

Filter FilterSet::filter(std::size_t i) const {
  Filter f;
  f.id = ids[i];
  f.interface = interfaces[i];
  for (std::uint64_t c = offsets[i]; c < offsets[i + 1]; ++c) {
    Constraint k;
    k.name = std::string(names.name(constraint_name[c]));
    k.op = constraint_op[c];
    if (k.op != Op::exists) k.value = model_value(constraint_type[c], constraint_value[c], strings);
    f.constraints.push_back(std::move(k));
  }
  return f;
}

std::vector<Filter> FilterSet::filters() const {
  std::vector<Filter> out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) out.push_back(filter(i));
  return out;
}

void FilterSet::check(std::string_view origin) const {
  const std::string where(origin);
  const auto fail = [&](const std::string& item, const std::string& what) {
    throw Error::argument(where + ": " + item, "(columns)", "a consistent filter set", what);
  };
  const std::size_t n = ids.size();
  const std::size_t m = constraint_name.size();
  if (interfaces.size() != n || offsets.size() != n + 1 || offsets.front() != 0 || offsets.back() != m ||
      constraint_op.size() != m || constraint_type.size() != m || constraint_value.size() != m)
    fail("columns", "column lengths disagree");
  for (std::uint32_t i = 0; i < names.size(); ++i)
    if (std::string p = name_problem(names.name(i)); !p.empty()) fail("name " + std::to_string(i), p);
  std::unordered_set<FilterId> seen;
  seen.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string item = "filter " + std::to_string(ids[i]);
    if (offsets[i + 1] < offsets[i]) fail(item, "offsets decrease");
    if (offsets[i + 1] == offsets[i]) fail(item, "an empty filter (at least one constraint)");
    if (!seen.insert(ids[i]).second) fail(item, "a duplicate filter id");
    for (std::uint64_t c = offsets[i]; c < offsets[i + 1]; ++c) {
      const std::string citem = item + " constraint " + std::to_string(c - offsets[i]);
      if (constraint_name[c] >= names.size()) fail(citem, "a name index outside the dictionary");
      const Op op = constraint_op[c];
      if (static_cast<int>(op) >= op_count) fail(citem, "an unknown operator");
      if (op == Op::exists) continue;
      if (!known_type(constraint_type[c])) fail(citem, "an unknown value type");
      if (!op_accepts(op, constraint_type[c]))
        fail(citem, "operator " + std::string(to_string(op)) + " does not take a " +
                        std::string(to_string(constraint_type[c])));
      if (std::string p = raw_problem(constraint_type[c], constraint_value[c], strings.size()); !p.empty())
        fail(citem, p);
    }
  }
}

EventBatch::EventBatch(std::span<const Event> events) {
  for (const Event& e : events) add(e);
}

void EventBatch::add(const Event& event, std::optional<EventId> id) {
  validate(event, "event " + std::to_string(id ? *id : size()));
  for (const Attribute& a : event.attributes)
    add_attribute(names.intern(a.name), a.value.type(), column_value(a.value, strings));
  end_event(id ? *id : size());
}

Event EventBatch::event(std::size_t i) const {
  Event e;
  for (std::uint64_t a = offsets[i]; a < offsets[i + 1]; ++a)
    e.attributes.push_back({std::string(names.name(attribute_name[a])),
                            model_value(attribute_type[a], attribute_value[a], strings)});
  return e;
}

EventBatch EventBatch::slice(std::size_t begin, std::size_t end) const {
  EventBatch out;
  for (std::size_t i = begin; i < end; ++i) {
    for (std::uint64_t a = offsets[i]; a < offsets[i + 1]; ++a) {
      RawValue v = attribute_value[a];
      if (attribute_type[a] == ValueType::string) {
        const std::string_view s = string_of(v);
        v = {out.strings.size(), s.size()};
        out.strings += s;
      }
      out.add_attribute(out.names.intern(names.name(attribute_name[a])), attribute_type[a], v);
    }
    out.end_event(ids[i]);
  }
  return out;
}

void EventBatch::check(std::string_view origin) const {
  const std::string where(origin);
  const auto fail = [&](const std::string& item, const std::string& what) {
    throw Error::argument(where + ": " + item, "(columns)", "a consistent event batch", what);
  };
  const std::size_t n = ids.size();
  const std::size_t m = attribute_name.size();
  if (offsets.size() != n + 1 || offsets.front() != 0 || offsets.back() != m || attribute_type.size() != m ||
      attribute_value.size() != m)
    fail("columns", "column lengths disagree");
  for (std::uint32_t i = 0; i < names.size(); ++i)
    if (std::string p = name_problem(names.name(i)); !p.empty()) fail("name " + std::to_string(i), p);
  for (std::size_t i = 0; i < n; ++i) {
    if (offsets[i + 1] < offsets[i]) fail("event " + std::to_string(i), "offsets decrease");
    for (std::uint64_t a = offsets[i]; a < offsets[i + 1]; ++a) {
      const std::string item =
          "event " + std::to_string(ids[i]) + " attribute " + std::to_string(a - offsets[i]);
      if (attribute_name[a] >= names.size()) fail(item, "a name index outside the dictionary");
      if (!known_type(attribute_type[a])) fail(item, "an unknown value type");
      if (std::string p = raw_problem(attribute_type[a], attribute_value[a], strings.size()); !p.empty())
        fail(item, p);
    }
  }
}

}  // namespace sextant::matching
