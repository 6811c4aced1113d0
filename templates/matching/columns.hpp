// Filters and events in columns: the compact form the readers, the generator, the writers and the
// matcher share (the model types of model.hpp are the convenient form; both convert). Names are
// kept once in a dictionary, string values in one byte arena (RawValue: offset, length), numbers
// as their bits (int64: a = the value, double: a = its bits, bool: a = 0 or 1).
//
// The columns are plain members so that a reader fills them at memory speed; check() validates
// everything a reader or a caller could get wrong (index ranges, operator and type, NaN).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "templates/matching/model.hpp"
#include "templates/matching/value.hpp"

namespace sextant::matching {

// Names by index (0, 1, ... in first-seen order) and indices by name.
class NameDictionary {
 public:
  // The name's index, adding it when new (no validation: callers check names).
  std::uint32_t intern(std::string_view name);
  std::optional<std::uint32_t> find(std::string_view name) const;
  std::string_view name(std::uint32_t index) const { return names_[index]; }
  std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(names_.size()); }
  const std::vector<std::string>& names() const noexcept { return names_; }
  void clear();

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

// A RawValue of the columns for `v` (strings appended to `arena`).
RawValue column_value(const Value& v, std::string& arena);
// The model value of a column entry.
Value model_value(ValueType type, RawValue raw, std::string_view arena);

struct FilterSet {
  NameDictionary names;
  std::vector<FilterId> ids;
  std::vector<InterfaceId> interfaces;
  std::vector<std::uint64_t> offsets{0};  // filter i: constraints offsets[i] .. offsets[i + 1]
  std::vector<std::uint32_t> constraint_name;
  std::vector<Op> constraint_op;
  std::vector<ValueType> constraint_type;  // int64 (value 0) for exists
  std::vector<RawValue> constraint_value;
  std::string strings;

  std::size_t size() const noexcept { return ids.size(); }
  std::size_t constraints() const noexcept { return constraint_name.size(); }
  std::size_t constraints_of(std::size_t i) const noexcept { return offsets[i + 1] - offsets[i]; }

  // Appends a filter (validate(filter) first: throws Error::argument, nothing appended).
  void add(const Filter& filter);
  // The builder readers use: constraints of the next filter, then end_filter. No checks here.
  void add_constraint(std::uint32_t name, Op op, ValueType type, RawValue value) {
    constraint_name.push_back(name);
    constraint_op.push_back(op);
    constraint_type.push_back(type);
    constraint_value.push_back(value);
  }
  void end_filter(FilterId id, InterfaceId interface) {
    ids.push_back(id);
    interfaces.push_back(interface);
    offsets.push_back(constraint_name.size());
  }

  Filter filter(std::size_t i) const;
  std::vector<Filter> filters() const;
  std::string_view string_of(RawValue v) const { return std::string_view(strings).substr(v.a, v.b); }

  // Throws Error::argument naming `origin` and the filter (its id) when the columns are
  // inconsistent or a filter is invalid (see validate(const Filter&)); duplicate ids included.
  void check(std::string_view origin) const;
};

struct EventBatch {
  NameDictionary names;
  std::vector<EventId> ids;
  std::vector<std::uint64_t> offsets{0};  // event i: attributes offsets[i] .. offsets[i + 1]
  std::vector<std::uint32_t> attribute_name;
  std::vector<ValueType> attribute_type;
  std::vector<RawValue> attribute_value;
  std::string strings;

  EventBatch() = default;
  // Events with ids 0, 1, ... (validated: throws Error::argument naming the event).
  explicit EventBatch(std::span<const Event> events);

  std::size_t size() const noexcept { return ids.size(); }
  std::size_t attributes() const noexcept { return attribute_name.size(); }

  // Appends an event (validated first; nothing appended on error). id: default its index.
  void add(const Event& event, std::optional<EventId> id = std::nullopt);
  void add_attribute(std::uint32_t name, ValueType type, RawValue value) {
    attribute_name.push_back(name);
    attribute_type.push_back(type);
    attribute_value.push_back(value);
  }
  void end_event(EventId id) {
    ids.push_back(id);
    offsets.push_back(attribute_name.size());
  }

  Event event(std::size_t i) const;
  std::string_view string_of(RawValue v) const { return std::string_view(strings).substr(v.a, v.b); }
  // Events [begin, end) as a batch of their own (ids kept).
  EventBatch slice(std::size_t begin, std::size_t end) const;

  // Throws Error::argument naming `origin` and the event when the columns are inconsistent or a
  // value is NaN or infinite.
  void check(std::string_view origin) const;
};

}  // namespace sextant::matching
