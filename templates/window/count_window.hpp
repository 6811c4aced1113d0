// Count-based sliding windows over one column that is already in memory (paper 001, Slider).
//
// Window k of length W and slide S covers positions [k*S, k*S + W) of the column; only full
// windows exist, so a column of n values has K = (n - W) / S + 1 windows when n >= W and none
// otherwise. S > W (windows with gaps between them), S == W (tumbling) and W == 1 are all valid.
// One result per window, in window order.
//
// Output semantics (the same on every device and for every algorithm):
//   sum   int32, int64 -> int64. int32 sums cannot overflow for W < 2^32; int64 sums wrap
//                          modulo 2^64 (two's complement), never undefined behaviour.
//         float, double -> double. Accumulated in double; the order of additions differs
//                          between algorithms (and between runs of the atomic ones), so float
//                          results agree up to rounding only. The prefix algorithms subtract
//                          two running sums, so their error scales with the magnitude of the
//                          running sum rather than of the window (the paper's trade-off).
//   count any -> int64, always W (computed, not assumed: every algorithm counts).
//   min, max any -> the input type, exact. NaN inputs give unspecified results; -0.0 and +0.0
//                          compare equal and either may be reported.
//   argmin, argmax  any -> the input type, exact, plus the position (index in the column) of
//                          the value: the smallest/largest; among equal values the smallest
//                          position (-0.0 counts as below +0.0). NaN inputs: unspecified.
//   first, last     any -> the input type and its position: the window's first/last value.
// The positional functions (reports_position) write the positions to a second, int64 column.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/column_vector.hpp"

namespace sextant::window {

enum class ValueType : std::uint8_t { int32, int64, float32, float64 };
enum class AggregateKind : std::uint8_t { sum, count, min, max, argmin, argmax, first, last };

std::string_view to_string(ValueType type) noexcept;
std::string_view to_string(AggregateKind kind) noexcept;
// "int32|int64|float|double" (float32/float64 accepted too); throws Error naming `parameter`.
ValueType parse_value_type(const char* parameter, std::string_view text);
// "sum|count|min|max|argmin|argmax|first|last"; throws Error naming `parameter`.
AggregateKind parse_aggregate(const char* parameter, std::string_view text);

std::size_t size_of(ValueType type) noexcept;

namespace detail {
// Error::internal for an enum value that no visit maps to a type (out of line: the per-ISA
// translation units that visit must not emit Error's inline members with their flags).
[[noreturn]] void throw_kind_without_type(const char* visit);
}  // namespace detail
// The type of a window result (see the table above).
ValueType result_type(ValueType input, AggregateKind kind) noexcept;
// The traits of the kind's aggregate type (aggregate_traits.hpp), for runtime selection:
// an inverse (sum, count; the prefix-sum algorithms need it), a device atomic (sum, count, min,
// max; GBL, SH and COOP-OPT need it), and a position beside each value (argmin, argmax, first,
// last).
bool is_invertible(AggregateKind kind) noexcept;
bool has_device_atomic(AggregateKind kind) noexcept;
bool reports_position(AggregateKind kind) noexcept;

template <class T>
concept WindowValue = std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t> ||
    std::same_as<T, float> || std::same_as<T, double>;

template <WindowValue T>
inline constexpr ValueType value_type_of = std::same_as<T, std::int32_t>   ? ValueType::int32
                                           : std::same_as<T, std::int64_t> ? ValueType::int64
                                           : std::same_as<T, float>        ? ValueType::float32
                                                                           : ValueType::float64;

// Calls f(T{}) with the C++ type of `type`.
template <class F>
decltype(auto) visit_value_type(ValueType type, F&& f) {
  switch (type) {
    case ValueType::int32:
      return f(std::int32_t{});
    case ValueType::int64:
      return f(std::int64_t{});
    case ValueType::float32:
      return f(float{});
    case ValueType::float64:
      break;
  }
  return f(double{});
}

// W and S. Both at least 1 and at most max_parameter (keeps every position computation of
// every backend inside 64 bits).
struct CountWindowSpec {
  static constexpr std::uint64_t max_parameter = std::uint64_t{1} << 40;

  std::uint64_t length = 0;  // W
  std::uint64_t slide = 0;   // S

  // Throws Error::argument naming "length" / "slide" and the valid range.
  void validate() const;
  // K for a column of n values.
  constexpr std::uint64_t window_count(std::uint64_t n) const noexcept {
    return n < length ? 0 : (n - length) / slide + 1;
  }
  // Positions any window reads: (K - 1) * S + W, or 0 without windows.
  constexpr std::uint64_t used_length(std::uint64_t n) const noexcept {
    const std::uint64_t k = window_count(n);
    return k == 0 ? 0 : (k - 1) * slide + length;
  }
};

// Type-erased columns: the input, and the caller-provided output of K results. The memory
// belongs to the device the call runs on (host memory for the CPU, device memory for a GPU).
struct ColumnView {
  ValueType type = ValueType::int32;
  const void* data = nullptr;
  std::size_t size = 0;

  ColumnView() = default;
  ColumnView(ValueType t, const void* d, std::size_t n) : type(t), data(d), size(n) {}
  template <WindowValue T>
  ColumnView(std::span<const T> values) : type(value_type_of<T>), data(values.data()), size(values.size()) {}
  template <WindowValue T>
  const T* as() const noexcept {
    return static_cast<const T*>(data);
  }
};

struct MutableColumnView {
  ValueType type = ValueType::int64;
  void* data = nullptr;
  std::size_t size = 0;

  MutableColumnView() = default;
  MutableColumnView(ValueType t, void* d, std::size_t n) : type(t), data(d), size(n) {}
  template <WindowValue T>
  MutableColumnView(std::span<T> values) : type(value_type_of<T>), data(values.data()), size(values.size()) {}
  template <WindowValue T>
  T* as() const noexcept {
    return static_cast<T*>(data);
  }
};

// An owning host column of any of the four types (ColumnVector: a resize leaves new values
// uninitialised, for results that are sized and then written).
using Column = std::variant<ColumnVector<std::int32_t>, ColumnVector<std::int64_t>, ColumnVector<float>,
                            ColumnVector<double>>;

// `size` zeros.
Column make_column(ValueType type, std::size_t size);
ValueType type_of(const Column& column) noexcept;
std::size_t size_of(const Column& column) noexcept;
ColumnView view(const Column& column) noexcept;
MutableColumnView mutable_view(Column& column) noexcept;

namespace detail {
// Error::argument: `what` holds values of type `held`, not `wanted`.
[[noreturn]] void throw_column_type(std::string_view what, ValueType held, ValueType wanted);
}  // namespace detail

// The column's values as T (no copy), instead of std::get<ColumnVector<T>>(column): a type that is
// not the column's throws Error::argument naming `what`, the column's type and T.
template <WindowValue T>
std::span<const T> column_as(const Column& column, std::string_view what = "column") {
  if (const auto* values = std::get_if<ColumnVector<T>>(&column)) return *values;
  detail::throw_column_type(what, type_of(column), value_type_of<T>);
}

// One request: what a specialisation's can_run and the selector look at.
struct CountWindowProblem {
  std::uint64_t n = 0;
  CountWindowSpec spec;
  ValueType type = ValueType::int32;
  AggregateKind kind = AggregateKind::sum;

  std::uint64_t windows() const noexcept { return spec.window_count(n); }
  ValueType output_type() const noexcept { return result_type(type, kind); }
};

// Throws Error unless `in`/`out` suit `spec` and `kind`: out.type == result_type(in.type, kind),
// out.size >= K and, for a positional kind, `positions` (K entries) given (the parameter names
// are those of the API).
void check_columns(const ColumnView& in, const MutableColumnView& out, const CountWindowSpec& spec,
                   AggregateKind kind, const std::int64_t* positions = nullptr);

}  // namespace sextant::window
