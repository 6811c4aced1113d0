#include "templates/matching/value.hpp"

#include <cmath>
#include <utility>

namespace sextant::matching {

std::string_view to_string(ValueType type) noexcept {
  switch (type) {
    case ValueType::int64:
      return "int64";
    case ValueType::float64:
      return "double";
    case ValueType::boolean:
      return "bool";
    case ValueType::string:
      return "string";
  }
  return "?";
}

Value Value::integer(std::int64_t v) noexcept {
  Value out;
  out.type_ = ValueType::int64;
  out.int_ = v;
  return out;
}

Value Value::real(double v) noexcept {
  Value out;
  out.type_ = ValueType::float64;
  out.double_ = v;
  return out;
}

Value Value::boolean(bool v) noexcept {
  Value out;
  out.type_ = ValueType::boolean;
  out.int_ = v ? 1 : 0;
  return out;
}

Value Value::text(std::string v) {
  Value out;
  out.type_ = ValueType::string;
  out.string_ = std::move(v);
  return out;
}

bool operator==(const Value& a, const Value& b) noexcept {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case ValueType::int64:
    case ValueType::boolean:
      return a.int_ == b.int_;
    case ValueType::float64:
      return std::bit_cast<std::uint64_t>(a.double_) == std::bit_cast<std::uint64_t>(b.double_);
    case ValueType::string:
      return a.string_ == b.string_;
  }
  return false;
}

namespace {
constexpr std::string_view op_names[op_count] = {"=",  "!=",     "<",      "<=",        ">",
                                                 ">=", "prefix", "suffix", "substring", "exists"};
}

std::string_view to_string(Op op) noexcept {
  const auto i = static_cast<std::size_t>(op);
  return i < static_cast<std::size_t>(op_count) ? op_names[i] : "?";
}

std::optional<Op> parse_op(std::string_view text) noexcept {
  for (int i = 0; i < op_count; ++i)
    if (op_names[i] == text) return static_cast<Op>(i);
  return std::nullopt;
}

bool op_accepts(Op op, ValueType type) noexcept {
  switch (op) {
    case Op::eq:
    case Op::ne:
      return true;
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
      return type == ValueType::int64 || type == ValueType::float64;
    case Op::prefix:
    case Op::suffix:
    case Op::substring:
      return type == ValueType::string;
    case Op::exists:
      return false;
  }
  return false;
}

std::string_view ops_for(ValueType type) noexcept {
  switch (type) {
    case ValueType::int64:
    case ValueType::float64:
      return "=, !=, <, <=, >, >=";
    case ValueType::boolean:
      return "=, !=";
    case ValueType::string:
      return "=, !=, prefix, suffix, substring";
  }
  return "";
}

NumKey num_key(double v) noexcept {
  constexpr double two63 = 9223372036854775808.0;
  if (v >= two63) return {INT64_MAX, v};
  if (v < -two63) return {INT64_MIN, v};
  const double f = std::floor(v);                // in [-2^63, 2^63 - 1024]: fits exactly
  return {static_cast<std::int64_t>(f), v - f};  // v - floor(v) is exact, in [0, 1); -0.0 -> +0.0
}

}  // namespace sextant::matching
