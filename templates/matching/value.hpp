// The values and operators of content-based matching (paper 002, section 2; semantics in
// DESIGN.md, "Matching"): typed attribute values (int64, double, bool, string) and the constraint
// operators, with the exact comparisons every backend shares.
//
// Numbers compare numerically and exactly across int64 and double: every number maps to a
// canonical key (hi, lo) whose lexicographic order is the numeric order (num_key below), so
// 2^53 + 1 (int64) is greater than 9007199254740992.0 (double) and 5 equals 5.0. Strings compare
// byte-wise, case-sensitive; any bytes are allowed.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/host_device.hpp"

namespace sextant::matching {

enum class ValueType : std::uint8_t { int64, float64, boolean, string };

// "int64", "double", "bool", "string".
std::string_view to_string(ValueType type) noexcept;

// A typed value of the public data model.
class Value {
 public:
  Value() = default;  // int64 0
  static Value integer(std::int64_t v) noexcept;
  static Value real(double v) noexcept;  // any double; validation rejects NaN and infinities
  static Value boolean(bool v) noexcept;
  static Value text(std::string v);

  ValueType type() const noexcept { return type_; }
  std::int64_t as_int() const noexcept { return int_; }
  double as_double() const noexcept { return double_; }
  bool as_bool() const noexcept { return int_ != 0; }
  const std::string& as_string() const noexcept { return string_; }

  friend bool operator==(const Value& a, const Value& b) noexcept;

 private:
  ValueType type_ = ValueType::int64;
  std::int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
};

// The constraint operators. = and != on every type; < <= > >= on numbers; prefix, suffix and
// substring on strings ("the attribute starts with / ends with / contains the value"); exists
// (any value of any type) takes no value.
enum class Op : std::uint8_t { eq, ne, lt, le, gt, ge, prefix, suffix, substring, exists };

inline constexpr int op_count = 10;

// "=", "!=", "<", "<=", ">", ">=", "prefix", "suffix", "substring", "exists".
std::string_view to_string(Op op) noexcept;
std::optional<Op> parse_op(std::string_view text) noexcept;
// Whether `op` takes a value of `type` (exists takes none: false for every type).
bool op_accepts(Op op, ValueType type) noexcept;
// "=, !=, <, <=, >, >=" and the like: the operators a value of `type` accepts, for messages.
std::string_view ops_for(ValueType type) noexcept;

// The rows a constraint lives in and the attributes it can be compared with: numbers (int64 and
// double together), bools, strings, and `any` for exists.
enum class TypeClass : std::uint8_t { numeric = 0, boolean = 1, string = 2, any = 3 };

SEXTANT_HD constexpr TypeClass class_of(ValueType type) noexcept {
  return type == ValueType::int64 || type == ValueType::float64 ? TypeClass::numeric
         : type == ValueType::boolean                           ? TypeClass::boolean
                                                                : TypeClass::string;
}

// A value as the tables and prepared events hold it (16 bytes, no pointers, the same on a GPU):
// numeric: a = hi, b = lo of the canonical key (num_key); bool: a = 0 or 1; string: a = byte
// offset into the owner's string arena, b = length.
struct RawValue {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  friend bool operator==(const RawValue&, const RawValue&) = default;
};

// The canonical numeric key: value = hi + lo with lo in [0, 1) for numbers within the int64
// range; beyond it hi saturates and lo is the value itself (>= 2^63 or < -2^63), which keeps the
// order. Exact for every int64 and every finite double.
struct NumKey {
  std::int64_t hi = 0;
  double lo = 0;
};

SEXTANT_HD constexpr NumKey num_key(std::int64_t v) noexcept {
  return {v, 0.0};
}
// `v` finite.
NumKey num_key(double v) noexcept;

SEXTANT_HD inline RawValue raw(NumKey k) noexcept {
  return {static_cast<std::uint64_t>(k.hi), std::bit_cast<std::uint64_t>(k.lo)};
}
SEXTANT_HD inline NumKey num_key_of(RawValue r) noexcept {
  return {static_cast<std::int64_t>(r.a), std::bit_cast<double>(r.b)};
}

// -1, 0, 1: the numeric order of the two values behind the keys.
SEXTANT_HD inline int compare(NumKey x, NumKey y) noexcept {
  if (x.hi != y.hi) return x.hi < y.hi ? -1 : 1;
  if (x.lo != y.lo) return x.lo < y.lo ? -1 : 1;
  return 0;
}

// Whether an attribute (left operand) satisfies `op value` given their numeric order.
SEXTANT_HD constexpr bool satisfies_order(Op op, int order) noexcept {
  switch (op) {
    case Op::eq:
      return order == 0;
    case Op::ne:
      return order != 0;
    case Op::lt:
      return order < 0;
    case Op::le:
      return order <= 0;
    case Op::gt:
      return order > 0;
    case Op::ge:
      return order >= 0;
    default:
      return false;
  }
}

// String operators on byte ranges (attribute `s`, constraint value `v`).
SEXTANT_HD inline bool bytes_equal(const char* a, const char* b, std::uint64_t n) noexcept {
  for (std::uint64_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}
SEXTANT_HD inline bool satisfies_string(Op op, const char* s, std::uint64_t sn, const char* v,
                                        std::uint64_t vn) noexcept {
  switch (op) {
    case Op::eq:
      return sn == vn && bytes_equal(s, v, vn);
    case Op::ne:
      return !(sn == vn && bytes_equal(s, v, vn));
    case Op::prefix:
      return sn >= vn && bytes_equal(s, v, vn);
    case Op::suffix:
      return sn >= vn && bytes_equal(s + (sn - vn), v, vn);
    case Op::substring:
      if (vn > sn) return false;
      for (std::uint64_t i = 0; i + vn <= sn; ++i)
        if (bytes_equal(s + i, v, vn)) return true;
      return false;
    default:
      return false;
  }
}

}  // namespace sextant::matching
