// The matching oracle of the tests, written from DESIGN.md's "Matching" semantics alone and
// sharing no code with the matcher: every constraint of every filter is tested against every
// attribute of the event. Numbers compare through long double, whose 64-bit significand holds
// every int64 and every double exactly (so int64 vs double is exact without the matcher's
// canonical keys); strings through std::string_view.
#pragma once

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

#include "templates/matching/model.hpp"

namespace sextant::testing {

static_assert(std::numeric_limits<long double>::digits >= 64, "the oracle needs an exact long double");

struct OracleMatch {
  std::vector<matching::InterfaceId> interfaces;  // sorted, distinct
  std::vector<matching::FilterId> filters;        // sorted
};

inline bool oracle_number(const matching::Value& v, long double& out) {
  if (v.type() == matching::ValueType::int64) {
    out = static_cast<long double>(v.as_int());
    return true;
  }
  if (v.type() == matching::ValueType::float64) {
    out = static_cast<long double>(v.as_double());
    return true;
  }
  return false;
}

// Whether attribute value `a` satisfies `op c`.
inline bool oracle_holds(const matching::Value& a, matching::Op op, const matching::Value& c) {
  using matching::Op;
  using matching::ValueType;
  long double x = 0, y = 0;
  if (oracle_number(a, x) && oracle_number(c, y)) {
    switch (op) {
      case Op::eq:
        return x == y;
      case Op::ne:
        return x != y;
      case Op::lt:
        return x < y;
      case Op::le:
        return x <= y;
      case Op::gt:
        return x > y;
      case Op::ge:
        return x >= y;
      default:
        return false;
    }
  }
  if (a.type() == ValueType::boolean && c.type() == ValueType::boolean) {
    if (op == Op::eq) return a.as_bool() == c.as_bool();
    if (op == Op::ne) return a.as_bool() != c.as_bool();
    return false;
  }
  if (a.type() == ValueType::string && c.type() == ValueType::string) {
    const std::string_view s = a.as_string(), v = c.as_string();
    switch (op) {
      case Op::eq:
        return s == v;
      case Op::ne:
        return s != v;
      case Op::prefix:
        return s.starts_with(v);
      case Op::suffix:
        return s.ends_with(v);
      case Op::substring:
        return s.find(v) != std::string_view::npos;
      default:
        return false;
    }
  }
  return false;  // not comparable
}

inline bool oracle_satisfied(const matching::Constraint& c, const matching::Event& e) {
  for (const matching::Attribute& a : e.attributes) {
    if (a.name != c.name) continue;
    if (c.op == matching::Op::exists) return true;
    if (oracle_holds(a.value, c.op, c.value)) return true;
  }
  return false;
}

inline OracleMatch oracle_match(const std::vector<matching::Filter>& filters, const matching::Event& e) {
  OracleMatch out;
  for (const matching::Filter& f : filters) {
    bool all = !f.constraints.empty();
    for (const matching::Constraint& c : f.constraints) all = all && oracle_satisfied(c, e);
    if (!all) continue;
    out.filters.push_back(f.id);
    out.interfaces.push_back(f.interface);
  }
  std::sort(out.filters.begin(), out.filters.end());
  std::sort(out.interfaces.begin(), out.interfaces.end());
  out.interfaces.erase(std::unique(out.interfaces.begin(), out.interfaces.end()), out.interfaces.end());
  return out;
}

}  // namespace sextant::testing
