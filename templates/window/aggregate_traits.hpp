// The count-window family's aggregates as types of the one aggregate model (aggregate.hpp),
// shared by host and device code: sum and count are invertible (uncombine) and device atomics
// (add); min and max are device atomics; argmin, argmax, first and last are neither (a 16-byte
// accumulator), so only the algorithms that need no trait run them. Integer sums combine in
// uint64 so that overflow wraps instead of being undefined.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/host_device.hpp"
#include "templates/window/aggregate.hpp"
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
  static constexpr AtomicOp atomic = AtomicOp::add;
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
  static constexpr AtomicOp atomic = AtomicOp::add;
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
  static constexpr AtomicOp atomic = AtomicOp::min;
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
  static constexpr AtomicOp atomic = AtomicOp::max;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  SEXTANT_HD_INLINE static constexpr Acc lift(T x) noexcept { return x; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return a < b ? b : a; }
};

template <class T>
struct Aggregate<T, AggregateKind::argmin> : ArgMinAggregate<T> {};
template <class T>
struct Aggregate<T, AggregateKind::argmax> : ArgMaxAggregate<T> {};
template <class T>
struct Aggregate<T, AggregateKind::first> : FirstAggregate<T> {};
template <class T>
struct Aggregate<T, AggregateKind::last> : LastAggregate<T> {};

static_assert(InvertibleAggregate<Aggregate<int, AggregateKind::sum>> &&
              AtomicAggregate<Aggregate<double, AggregateKind::max>>);
static_assert(!InvertibleAggregate<Aggregate<int, AggregateKind::argmax>> &&
              !AtomicAggregate<Aggregate<double, AggregateKind::first>>);

// The one place where a runtime kind becomes a type: calls f(Aggregate<T, K>{}).
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
      return f(Aggregate<T, AggregateKind::max>{});
    case AggregateKind::argmin:
      return f(Aggregate<T, AggregateKind::argmin>{});
    case AggregateKind::argmax:
      return f(Aggregate<T, AggregateKind::argmax>{});
    case AggregateKind::first:
      return f(Aggregate<T, AggregateKind::first>{});
    case AggregateKind::last:
      return f(Aggregate<T, AggregateKind::last>{});
  }
  detail::throw_kind_without_type("visit_aggregate");
}

// Calls f(Aggregate<T, K>{}) for a runtime (type, kind).
template <class F>
decltype(auto) visit_aggregate(ValueType type, AggregateKind kind, F&& f) {
  return visit_value_type(type,
                          [&](auto t) -> decltype(auto) { return visit_aggregate<decltype(t)>(kind, f); });
}

}  // namespace sextant::window
