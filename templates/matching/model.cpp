#include "templates/matching/model.hpp"

#include <cmath>

#include "core/error.hpp"
#include "templates/matching/text_values.hpp"

namespace sextant::matching {

namespace {

bool name_start(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool name_char(char c) noexcept {
  return name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

std::string value_problem(const Value& v) {
  if (v.type() == ValueType::float64 && !std::isfinite(v.as_double()))
    return std::isnan(v.as_double()) ? "NaN is not a value" : "infinities are not values";
  return {};
}

}  // namespace

bool valid_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > max_name_bytes || !name_start(name[0])) return false;
  for (char c : name)
    if (!name_char(c)) return false;
  return true;
}

std::string name_problem(std::string_view name) {
  if (name.empty()) return "an empty name";
  if (name.size() > max_name_bytes)
    return "a name of " + std::to_string(name.size()) + " bytes (at most " + std::to_string(max_name_bytes) +
           ")";
  if (!valid_name(name)) return "name '" + escape_bytes(name) + "' is not [A-Za-z_][A-Za-z0-9_.]*";
  return {};
}

std::string constraint_problem(const Constraint& c) {
  if (std::string p = name_problem(c.name); !p.empty()) return p;
  if (c.op == Op::exists) return {};
  if (!op_accepts(c.op, c.value.type()))
    return "operator " + std::string(to_string(c.op)) + " does not take a " +
           std::string(to_string(c.value.type())) + " (a " + std::string(to_string(c.value.type())) +
           " takes " + std::string(ops_for(c.value.type())) + ")";
  return value_problem(c.value);
}

std::string attribute_problem(const Attribute& a) {
  if (std::string p = name_problem(a.name); !p.empty()) return p;
  return value_problem(a.value);
}

void validate(const Filter& filter) {
  const std::string where = "filter " + std::to_string(filter.id);
  if (filter.constraints.empty())
    throw Error::argument(where, "(no constraints)", "at least one constraint", "an empty filter");
  for (std::size_t i = 0; i < filter.constraints.size(); ++i) {
    const Constraint& c = filter.constraints[i];
    if (std::string p = constraint_problem(c); !p.empty())
      throw Error::argument(where + " constraint " + std::to_string(i), to_string(c),
                            "name op value with an operator of the value's type", p);
  }
}

void validate(const Event& event, std::string_view where) {
  for (std::size_t i = 0; i < event.attributes.size(); ++i) {
    const Attribute& a = event.attributes[i];
    if (std::string p = attribute_problem(a); !p.empty())
      throw Error::argument(std::string(where) + " attribute " + std::to_string(i),
                            escape_bytes(a.name) + " = " + format_value(a.value), "name = finite value", p);
  }
}

std::string to_string(const Constraint& c) {
  std::string out = escape_bytes(c.name);
  out += ' ';
  out += to_string(c.op);
  if (c.op != Op::exists) {
    out += ' ';
    out += format_value(c.value);
  }
  return out;
}

}  // namespace sextant::matching
