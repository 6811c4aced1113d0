// The four aggregate functions as constexpr traits that host and device code share:
// the accumulator type, lift (input -> accumulator), combine, identity and, for the
// invertible ones, uncombine (the inverse the prefix algorithms subtract with).
// Integer sums combine in uint64 so that overflow wraps instead of being undefined.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/host_device.hpp"
#include "templates/window/count_window.hpp"

namespace sextant::window {

namespace detail {
template <class T>
using SumAccumulator = std::conditional_t<std::is_integral_v<T>, std::int64_t, double>;

template <class A>
SEXTANT_HD_INLINE constexpr A wrapping_add(A a, A b) noexcept {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  else
    return a + b;
}
template <class A>
SEXTANT_HD_INLINE constexpr A wrapping_sub(A a, A b) noexcept {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
  else
    return a - b;
}
}  // namespace detail

template <class T, AggregateKind K>
struct Aggregate;

template <class T>
struct Aggregate<T, AggregateKind::sum> {
  using Input = T;
  using Acc = detail::SumAccumulator<T>;
  static constexpr bool invertible = true;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept { return Acc{0}; }
  SEXTANT_HD_INLINE static constexpr Acc lift(T x) noexcept { return static_cast<Acc>(x); }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return detail::wrapping_add(a, b); }
  SEXTANT_HD_INLINE static constexpr Acc uncombine(Acc a, Acc b) noexcept {
    return detail::wrapping_sub(a, b);
  }
};

template <class T>
struct Aggregate<T, AggregateKind::count> {
  using Input = T;
  using Acc = std::int64_t;
  static constexpr bool invertible = true;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept { return 0; }
  SEXTANT_HD_INLINE static constexpr Acc lift(T) noexcept { return 1; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return detail::wrapping_add(a, b); }
  SEXTANT_HD_INLINE static constexpr Acc uncombine(Acc a, Acc b) noexcept {
    return detail::wrapping_sub(a, b);
  }
};

template <class T>
struct Aggregate<T, AggregateKind::min> {
  using Input = T;
  using Acc = T;
  static constexpr bool invertible = false;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept {
    if constexpr (std::is_floating_point_v<T>)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  SEXTANT_HD_INLINE static constexpr Acc lift(T x) noexcept { return x; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return b < a ? b : a; }
};

template <class T>
struct Aggregate<T, AggregateKind::max> {
  using Input = T;
  using Acc = T;
  static constexpr bool invertible = false;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  SEXTANT_HD_INLINE static constexpr Acc lift(T x) noexcept { return x; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return a < b ? b : a; }
};

// The result type of Aggregate<T, K> as a ValueType must match result_type(); checked here once.
template <class A>
inline constexpr ValueType accumulator_type = value_type_of<typename A::Acc>;

// Calls f(Aggregate<T, K>{}) for a runtime kind, T given.
template <WindowValue T, class F>
decltype(auto) visit_aggregate(AggregateKind kind, F&& f) {
  switch (kind) {
    case AggregateKind::sum:
      return f(Aggregate<T, AggregateKind::sum>{});
    case AggregateKind::count:
      return f(Aggregate<T, AggregateKind::count>{});
    case AggregateKind::min:
      return f(Aggregate<T, AggregateKind::min>{});
    case AggregateKind::max:
      break;
  }
  return f(Aggregate<T, AggregateKind::max>{});
}

// Calls f(Aggregate<T, K>{}) for a runtime (type, kind).
template <class F>
decltype(auto) visit_aggregate(ValueType type, AggregateKind kind, F&& f) {
  return visit_value_type(type,
                          [&](auto t) -> decltype(auto) { return visit_aggregate<decltype(t)>(kind, f); });
}

}  // namespace sextant::window
