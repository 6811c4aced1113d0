#include "templates/window/count_window.hpp"

#include <string>

#include "core/error.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window {

std::string_view to_string(ValueType type) noexcept {
  switch (type) {
    case ValueType::int32:
      return "int32";
    case ValueType::int64:
      return "int64";
    case ValueType::float32:
      return "float";
    case ValueType::float64:
      return "double";
  }
  return "?";
}

std::string_view to_string(AggregateKind kind) noexcept {
  switch (kind) {
    case AggregateKind::sum:
      return "sum";
    case AggregateKind::count:
      return "count";
    case AggregateKind::min:
      return "min";
    case AggregateKind::max:
      return "max";
    case AggregateKind::argmin:
      return "argmin";
    case AggregateKind::argmax:
      return "argmax";
    case AggregateKind::first:
      return "first";
    case AggregateKind::last:
      return "last";
  }
  return "?";
}

ValueType parse_value_type(const char* parameter, std::string_view text) {
  if (text == "int32") return ValueType::int32;
  if (text == "int64") return ValueType::int64;
  if (text == "float" || text == "float32") return ValueType::float32;
  if (text == "double" || text == "float64") return ValueType::float64;
  throw Error::argument(parameter, text, "int32, int64, float or double", "unknown value type");
}

AggregateKind parse_aggregate(const char* parameter, std::string_view text) {
  if (text == "sum") return AggregateKind::sum;
  if (text == "count") return AggregateKind::count;
  if (text == "min") return AggregateKind::min;
  if (text == "max") return AggregateKind::max;
  if (text == "argmin") return AggregateKind::argmin;
  if (text == "argmax") return AggregateKind::argmax;
  if (text == "first") return AggregateKind::first;
  if (text == "last") return AggregateKind::last;
  throw Error::argument(parameter, text, "sum, count, min, max, argmin, argmax, first or last",
                        "unknown aggregate function");
}

void detail::throw_kind_without_type(const char* visit) {
  throw Error::internal(std::string(visit) + ": an aggregate kind without a type");
}

std::size_t size_of(ValueType type) noexcept {
  return type == ValueType::int32 || type == ValueType::float32 ? 4 : 8;
}

ValueType result_type(ValueType input, AggregateKind kind) noexcept {
  switch (kind) {
    case AggregateKind::sum:
      return input == ValueType::int32 || input == ValueType::int64 ? ValueType::int64 : ValueType::float64;
    case AggregateKind::count:
      return ValueType::int64;
    case AggregateKind::min:
    case AggregateKind::max:
    case AggregateKind::argmin:
    case AggregateKind::argmax:
    case AggregateKind::first:
    case AggregateKind::last:
      return input;
  }
  return input;
}

std::string_view to_string(CountAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case CountAlgorithm::automatic:
      return "auto";
    case CountAlgorithm::gbl:
      return "gbl";
    case CountAlgorithm::sh:
      return "sh";
    case CountAlgorithm::coop:
      return "coop";
    case CountAlgorithm::direct_prefix:
      return "direct-prefix";
    case CountAlgorithm::reduced_prefix:
      return "reduced-prefix";
    case CountAlgorithm::block_scan:
      return "block-scan";
  }
  return "?";
}

CountAlgorithm parse_count_algorithm(const char* parameter, std::string_view text) {
  if (text == "auto") return CountAlgorithm::automatic;
  if (text == "gbl") return CountAlgorithm::gbl;
  if (text == "sh") return CountAlgorithm::sh;
  if (text == "coop" || text == "coop-opt") return CountAlgorithm::coop;
  if (text == "direct-prefix") return CountAlgorithm::direct_prefix;
  if (text == "reduced-prefix") return CountAlgorithm::reduced_prefix;
  if (text == "block-scan") return CountAlgorithm::block_scan;
  throw Error::argument(parameter, text, "auto, gbl, sh, coop, direct-prefix, reduced-prefix or block-scan",
                        "unknown algorithm");
}

// The traits are the same for every value type; int32 stands for all.
bool is_invertible(AggregateKind kind) noexcept {
  return visit_aggregate<std::int32_t>(kind, [](auto a) { return InvertibleAggregate<decltype(a)>; });
}
bool has_device_atomic(AggregateKind kind) noexcept {
  return visit_aggregate<std::int32_t>(kind, [](auto a) { return AtomicAggregate<decltype(a)>; });
}
bool reports_position(AggregateKind kind) noexcept {
  return visit_aggregate<std::int32_t>(kind, [](auto a) { return SelectingAggregate<decltype(a)>; });
}

void CountWindowSpec::validate() const {
  const std::string valid = "1.." + std::to_string(max_parameter);
  if (length < 1 || length > max_parameter)
    throw Error::argument("length", std::to_string(length), valid, "window length out of range");
  if (slide < 1 || slide > max_parameter)
    throw Error::argument("slide", std::to_string(slide), valid, "window slide out of range");
}

void detail::throw_column_type(std::string_view what, ValueType held, ValueType wanted) {
  throw Error::argument(what, "values of type " + std::string(to_string(held)),
                        "read it as " + std::string(to_string(held)),
                        "read as " + std::string(to_string(wanted)));
}

Column make_column(ValueType type, std::size_t size) {
  return visit_value_type(type, [&](auto t) -> Column { return ColumnVector<decltype(t)>(size, decltype(t){}); });
}

ValueType type_of(const Column& column) noexcept {
  return std::visit(
      [](const auto& v) { return value_type_of<typename std::decay_t<decltype(v)>::value_type>; }, column);
}

std::size_t size_of(const Column& column) noexcept {
  return std::visit([](const auto& v) { return v.size(); }, column);
}

ColumnView view(const Column& column) noexcept {
  return std::visit([](const auto& v) { return ColumnView(std::span(v.data(), v.size())); }, column);
}

MutableColumnView mutable_view(Column& column) noexcept {
  return std::visit([](auto& v) { return MutableColumnView(std::span(v.data(), v.size())); }, column);
}

void check_columns(const ColumnView& in, const MutableColumnView& out, const CountWindowSpec& spec,
                   AggregateKind kind, const std::int64_t* positions) {
  spec.validate();
  const ValueType expected = result_type(in.type, kind);
  if (out.type != expected)
    throw Error::argument("out", std::string(to_string(out.type)), std::string(to_string(expected)),
                          "result column has the wrong type for " + std::string(to_string(kind)) + " over " +
                              std::string(to_string(in.type)));
  const std::uint64_t k = spec.window_count(in.size);
  if (out.size < k)
    throw Error::argument("out", std::to_string(out.size) + " results", "at least " + std::to_string(k),
                          "result column too small for the windows of the input");
  if (in.size != 0 && in.data == nullptr)
    throw Error::argument("in", "null", "a column", "input has no data");
  if (k != 0 && out.data == nullptr) throw Error::argument("out", "null", "a column", "output has no data");
  if (k != 0 && reports_position(kind) && positions == nullptr)
    throw Error::argument("positions", "null", "a column of " + std::to_string(k) + " int64",
                          std::string(to_string(kind)) + " reports a position beside each value");
}

}  // namespace sextant::window
