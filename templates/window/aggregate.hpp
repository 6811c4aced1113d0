// The one aggregate model of both window families (count windows over a column, windows over
// an out-of-order stream). An aggregate is a type with
//   Input, Acc                     the value type and the accumulator
//   identity(), combine(a, b)      a commutative monoid over Acc
//   lift(x) or lift(x, TupleContext)  one tuple's accumulator; the second form also sees where
//                                  the tuple is (its timestamp or its position), for argmin,
//                                  argmax, first and last
// and, for the families that emit something other than Acc, Output and lower(acc).
// Optional traits, each a concept that the algorithms needing it state with `requires`, so that
// an aggregate without one is rejected at compile time:
//   InvertibleAggregate  uncombine(a, b), the inverse the prefix algorithms subtract with
//   AtomicAggregate      `static constexpr AtomicOp atomic`: combine is a device atomic (add,
//                        min or max of a 4- or 8-byte accumulator)
//   representable(acc)   stream windows: whether a window's value can be emitted
//                        (stream_aggregates.hpp)
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "core/host_device.hpp"

namespace sextant::window {

// Where a tuple is: its event timestamp (stream windows) or its index in the column (count
// windows); argmin, argmax, first and last report it.
struct TupleContext {
  std::int64_t at = 0;
};

template <class A>
concept ValueLift = requires(const typename A::Input& x) {
  { A::lift(x) } -> std::same_as<typename A::Acc>;
};
template <class A>
concept ContextLift = requires(const typename A::Input& x, TupleContext c) {
  { A::lift(x, c) } -> std::same_as<typename A::Acc>;
};

template <class A>
concept WindowAggregate = requires(typename A::Acc a) {
  typename A::Input;
  typename A::Acc;
  { A::identity() } -> std::same_as<typename A::Acc>;
  { A::combine(a, a) } -> std::same_as<typename A::Acc>;
}
&&(ValueLift<A> || ContextLift<A>);

// lift with the tuple's context where the aggregate wants it; value-only aggregates never see
// it (the same code as calling A::lift(x)).
template <WindowAggregate A>
SEXTANT_HD_INLINE constexpr typename A::Acc lift(const typename A::Input& x, TupleContext c) noexcept {
  if constexpr (ContextLift<A>)
    return A::lift(x, c);
  else
    return A::lift(x);
}

template <class A>
concept InvertibleAggregate = WindowAggregate<A> && requires(typename A::Acc a) {
  { A::uncombine(a, a) } -> std::same_as<typename A::Acc>;
};

enum class AtomicOp : std::uint8_t { add, min, max };

template <class A>
concept AtomicAggregate = WindowAggregate<A> && requires {
  { A::atomic } -> std::convertible_to<AtomicOp>;
} &&(sizeof(typename A::Acc) == 4 || sizeof(typename A::Acc) == 8);

// ---- argmin, argmax, first, last: a value and where its tuple is -------------------------

// The result of the positional aggregates: the selected tuple's value and its timestamp
// (stream windows) or position (count windows).
template <class V>
struct Selected {
  V value;
  std::int64_t at;
  friend constexpr bool operator==(const Selected&, const Selected&) = default;
};

namespace detail {
// a < b, with -0.0 below +0.0 so that every tie rule below picks one tuple whatever the order
// of combines. NaN values give unspecified results.
template <class V>
SEXTANT_HD_INLINE constexpr bool value_less(V a, V b) noexcept {
  if constexpr (std::is_floating_point_v<V>)
    if (a == b && a == V{0}) return V{1} / a < V{1} / b;
  return a < b;
}
template <class V>
SEXTANT_HD_INLINE constexpr V lowest_value() noexcept {
  if constexpr (std::is_floating_point_v<V>)
    return -std::numeric_limits<V>::infinity();
  else
    return std::numeric_limits<V>::lowest();
}
template <class V>
SEXTANT_HD_INLINE constexpr V highest_value() noexcept {
  if constexpr (std::is_floating_point_v<V>)
    return std::numeric_limits<V>::infinity();
  else
    return std::numeric_limits<V>::max();
}
constexpr std::int64_t at_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t at_max = std::numeric_limits<std::int64_t>::max();

// Shared shape of the four: Acc = Output = Selected<V>; `Better(a, b)` says a wins over b
// (a strict total order on (value, at), so that combine is associative and commutative).
template <class V, class Better>
struct SelectAggregate {
  using Input = V;
  using Acc = Selected<V>;
  using Output = Selected<V>;
  SEXTANT_HD_INLINE static constexpr Acc lift(V x, TupleContext c) noexcept { return {x, c.at}; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return Better{}(b, a) ? b : a; }
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept { return a; }
};
template <class V>
struct ArgMinOrder {  // the smaller value; ties: the earlier tuple
  SEXTANT_HD_INLINE constexpr bool operator()(Selected<V> a, Selected<V> b) const noexcept {
    return value_less(a.value, b.value) || (!value_less(b.value, a.value) && a.at < b.at);
  }
};
template <class V>
struct ArgMaxOrder {  // the larger value; ties: the earlier tuple
  SEXTANT_HD_INLINE constexpr bool operator()(Selected<V> a, Selected<V> b) const noexcept {
    return value_less(b.value, a.value) || (!value_less(a.value, b.value) && a.at < b.at);
  }
};
template <class V>
struct FirstOrder {  // the earlier tuple; ties (equal timestamps): the smaller value
  SEXTANT_HD_INLINE constexpr bool operator()(Selected<V> a, Selected<V> b) const noexcept {
    return a.at < b.at || (a.at == b.at && value_less(a.value, b.value));
  }
};
template <class V>
struct LastOrder {  // the later tuple; ties (equal timestamps): the larger value
  SEXTANT_HD_INLINE constexpr bool operator()(Selected<V> a, Selected<V> b) const noexcept {
    return b.at < a.at || (a.at == b.at && value_less(b.value, a.value));
  }
};
}  // namespace detail

// The smallest value and where it is; among equal values the earliest (smallest timestamp or
// position).
template <class V>
struct ArgMinAggregate : detail::SelectAggregate<V, detail::ArgMinOrder<V>> {
  static constexpr std::string_view name = "argmin";
  SEXTANT_HD_INLINE static constexpr Selected<V> identity() noexcept {
    return {detail::highest_value<V>(), detail::at_max};
  }
};
// The largest value and where it is; among equal values the earliest.
template <class V>
struct ArgMaxAggregate : detail::SelectAggregate<V, detail::ArgMaxOrder<V>> {
  static constexpr std::string_view name = "argmax";
  SEXTANT_HD_INLINE static constexpr Selected<V> identity() noexcept {
    return {detail::lowest_value<V>(), detail::at_max};
  }
};
// The value of the earliest tuple (smallest event timestamp, not the first to arrive; count
// windows: the window's first position); among equal timestamps the smallest value.
template <class V>
struct FirstAggregate : detail::SelectAggregate<V, detail::FirstOrder<V>> {
  static constexpr std::string_view name = "first";
  SEXTANT_HD_INLINE static constexpr Selected<V> identity() noexcept {
    return {detail::highest_value<V>(), detail::at_max};
  }
};
// The value of the latest tuple; among equal timestamps the largest value.
template <class V>
struct LastAggregate : detail::SelectAggregate<V, detail::LastOrder<V>> {
  static constexpr std::string_view name = "last";
  SEXTANT_HD_INLINE static constexpr Selected<V> identity() noexcept {
    return {detail::lowest_value<V>(), detail::at_min};
  }
};

template <class A>
concept SelectingAggregate = WindowAggregate<A> && std::same_as<typename A::Acc, Selected<typename A::Input>>;

}  // namespace sextant::window
