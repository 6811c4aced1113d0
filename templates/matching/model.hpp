// The data model of content-based matching (paper 002, section 2; DESIGN.md, "Matching"):
//
// * an event is a set of attributes `name = value` (a name may repeat);
// * a constraint is `name op value` (or `name exists`); a filter is a conjunction of constraints
//   with an id, owned by an interface (a subscriber); an interface's predicate is the
//   disjunction of its filters;
// * matching an event yields the sorted set of matched interfaces and, on request, the sorted ids
//   of every matched filter.
//
// A constraint is satisfied when some attribute of its name and of a comparable type satisfies
// it (numbers with numbers, bools with bools, strings with strings; exists with anything); no
// attribute of that name: not satisfied, also for `!=`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "templates/matching/value.hpp"

namespace sextant::matching {

using FilterId = std::uint64_t;
using InterfaceId = std::uint32_t;
using EventId = std::uint64_t;

// Names: 1 .. 255 bytes of [A-Za-z0-9_.], not starting with a digit or '.' (the text format
// writes them bare).
inline constexpr std::size_t max_name_bytes = 255;
bool valid_name(std::string_view name) noexcept;
// Why `name` is not valid ("" when it is).
std::string name_problem(std::string_view name);

struct Constraint {
  std::string name;
  Op op = Op::eq;
  Value value;  // ignored for exists

  friend bool operator==(const Constraint& a, const Constraint& b) noexcept {
    return a.name == b.name && a.op == b.op && (a.op == Op::exists || a.value == b.value);
  }
};

struct Filter {
  FilterId id = 0;
  InterfaceId interface = 0;
  std::vector<Constraint> constraints;

  friend bool operator==(const Filter&, const Filter&) = default;
};

struct Attribute {
  std::string name;
  Value value;

  friend bool operator==(const Attribute&, const Attribute&) = default;
};

struct Event {
  std::vector<Attribute> attributes;

  friend bool operator==(const Event&, const Event&) = default;
};

// Why a constraint is invalid ("" when it is valid): a bad name, an operator that does not take
// its value's type (`price > "abc"`, `flag < true`, `s prefix 3`), NaN or an infinity.
std::string constraint_problem(const Constraint& c);
// Why an attribute is invalid ("" when valid): a bad name, NaN or an infinity.
std::string attribute_problem(const Attribute& a);

// Throws Error::argument naming the filter (its id), the constraint (0-based) and the problem;
// a filter needs at least one constraint.
void validate(const Filter& filter);
// Throws Error::argument naming `where` ("event 3") and the attribute.
void validate(const Event& event, std::string_view where);

// "price > 10", "name prefix \"ab\"", "x exists": the text format's spelling.
std::string to_string(const Constraint& c);

}  // namespace sextant::matching
