// Aggregates of the stream-window family: a user type with lift, an associative and
// commutative combine, an identity and lower, callable from host and device code
// (SEXTANT_HD_INLINE). The six built-ins for the four value types:
//
//   sum    int32, int64 -> int64, summed exactly (ExactSum: int64 for int32 values, exact below
//          2^32 tuples per window; 128 bits for int64 values); a window whose sum does not fit
//          in int64 is an error (never a wrapped value); float, double -> double
//   count  any -> int64
//   min    any -> the value type (exact)
//   max    any -> the value type (exact)
//   avg    any -> double; integers: the exact sum, then one division (q + r / n)
//   argmin, argmax  any -> the value type and the timestamp of its tuple: the smallest/largest
//          value; among equal values the earliest timestamp (-0.0 counts as below +0.0)
//   first, last  any -> the value type and its timestamp: the value of the tuple with the
//          smallest/largest event timestamp (not arrival order); among equal timestamps the
//          smallest (first) / largest (last) value, so results never depend on batching
//   var    any -> double, the population variance (divide by n). Integers: count, exact
//          sum and M2 combined with Chan et al.'s pairwise update, the difference of
//          the two means taken from the exact sums (so 1e18, 1e18 + 1, 1e18 + 2 gives 2/3);
//          floats: Chan's update of (n, mean, M2)
//
// An aggregate may declare `static bool representable(Acc)` and `overflow_message`: a window
// whose accumulator is not representable (an int64 sum out of range; a floating result that is
// infinite or NaN, i.e. an overflow or an infinite input) is reported as an error naming the
// key and the window by every backend, never emitted.
//
// Floating-point combines are not associative in rounding, so float results may differ in the
// last bits between backends and batchings; integer results are exact everywhere.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/host_device.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/count_window.hpp"

namespace sextant::window {

// The one aggregate model (aggregate.hpp) with a name and a lower to the emitted Output.
template <class A>
concept StreamAggregate = WindowAggregate<A> && requires(typename A::Acc a) {
  typename A::Output;
  { A::name } -> std::convertible_to<std::string_view>;
  { A::lower(a) } -> std::same_as<typename A::Output>;
};

enum class StreamAggregateKind : std::uint8_t { sum, count, min, max, avg, var, argmin, argmax, first, last };

std::string_view to_string(StreamAggregateKind kind) noexcept;
// "sum|count|min|max|avg|var|argmin|argmax|first|last"; throws Error naming `parameter` and the
// valid names.
StreamAggregateKind parse_stream_aggregate(const char* parameter, std::string_view text);

__extension__ typedef __int128 StreamInt128;  // GCC, Clang and nvcc; __extension__: no -Wpedantic

namespace detail {
// Finite (not infinite, not NaN) without <cmath>, in host and device code.
SEXTANT_HD_INLINE constexpr bool finite(double x) noexcept {
  return x - x == 0.0;
}
// The exact mean sum / n (n > 0) as an integer part q (within int64: a mean of int64 values)
// and a remainder r with |r| < n, so that mean = q + r / n.
struct SplitMean {
  std::int64_t q;
  std::int64_t r;
};
SEXTANT_HD_INLINE constexpr SplitMean split_mean(StreamInt128 sum, std::int64_t n) noexcept {
  return {static_cast<std::int64_t>(sum / n), static_cast<std::int64_t>(sum % n)};
}
SEXTANT_HD_INLINE constexpr double exact_mean(StreamInt128 sum, std::int64_t n) noexcept {
  const SplitMean m = split_mean(sum, n);
  return static_cast<double>(m.q) + static_cast<double>(m.r) / static_cast<double>(n);
}
}  // namespace detail

// The exact sum of integer values: int64 holds any sum of fewer than 2^32 int32 values (the
// partials stay 8 bytes on the hot path); int64 values need 128 bits.
template <WindowValue V>
using ExactSum = std::conditional_t<std::is_same_v<V, std::int64_t>, StreamInt128, std::int64_t>;

// Count, min and max are the count-window family's traits (aggregate_traits.hpp) with a name
// and an identity lower.
template <WindowValue V, AggregateKind K>
struct LoweredAggregate : Aggregate<V, K> {
  static constexpr std::string_view name = K == AggregateKind::sum     ? "sum"
                                           : K == AggregateKind::count ? "count"
                                           : K == AggregateKind::min   ? "min"
                                                                       : "max";
  using Acc = typename Aggregate<V, K>::Acc;
  using Output = Acc;
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept { return a; }
};

template <WindowValue V>
struct SumAggregate {
  static constexpr std::string_view name = "sum";
  static constexpr bool integral = std::is_integral_v<V>;
  using Input = V;
  using Acc = std::conditional_t<integral, ExactSum<V>, double>;
  using Output = std::conditional_t<integral, std::int64_t, double>;
  static constexpr std::string_view overflow_message =
      integral ? "the sum is outside the int64 range (-2^63 .. 2^63 - 1)"
               : "the sum is not finite (it overflows double, or a value is infinite or NaN)";
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept { return Acc{0}; }
  SEXTANT_HD_INLINE static constexpr Acc lift(V x) noexcept { return static_cast<Acc>(x); }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return a + b; }
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept { return static_cast<Output>(a); }
  SEXTANT_HD_INLINE static constexpr bool representable(Acc a) noexcept {
    if constexpr (std::is_same_v<Acc, StreamInt128>)
      return a >= static_cast<Acc>(INT64_MIN) && a <= static_cast<Acc>(INT64_MAX);
    else if constexpr (integral)
      return true;
    else
      return detail::finite(a);
  }
};
template <WindowValue V>
using CountAggregate = LoweredAggregate<V, AggregateKind::count>;
template <WindowValue V>
using MinAggregate = LoweredAggregate<V, AggregateKind::min>;
template <WindowValue V>
using MaxAggregate = LoweredAggregate<V, AggregateKind::max>;

template <WindowValue V>
struct AvgAggregate {
  static constexpr std::string_view name = "avg";
  static constexpr bool integral = std::is_integral_v<V>;
  using Input = V;
  using Sum = std::conditional_t<integral, ExactSum<V>, double>;
  struct Acc {
    Sum sum;
    std::int64_t n;
  };
  using Output = double;
  static constexpr std::string_view overflow_message =
      "the sum is not finite (it overflows double, or a value is infinite or NaN)";
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept { return {Sum{0}, 0}; }
  SEXTANT_HD_INLINE static constexpr Acc lift(V x) noexcept { return {static_cast<Sum>(x), 1}; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept { return {a.sum + b.sum, a.n + b.n}; }
  // An empty window is never emitted; 0 keeps lower total.
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept {
    if (a.n == 0) return 0.0;
    if constexpr (integral)
      return detail::exact_mean(a.sum, a.n);
    else
      return a.sum / static_cast<double>(a.n);
  }
  SEXTANT_HD_INLINE static constexpr bool representable(Acc a) noexcept {
    if constexpr (integral)
      return true;  // ExactSum holds the sum (see above)
    else
      return detail::finite(a.sum);
  }
};

template <WindowValue V>
struct VarAggregate {
  static constexpr std::string_view name = "var";
  static constexpr bool integral = std::is_integral_v<V>;
  using Input = V;
  // Integers: the exact sum replaces the mean, so that the means' difference in Chan's update
  // comes from exact integers (a double mean of values near 1e18 has an ulp of 128).
  struct IntAcc {
    std::int64_t n;
    ExactSum<V> sum;
    double m2;  // sum of squared deviations from the mean
  };
  struct FloatAcc {
    std::int64_t n;
    double mean;
    double m2;
  };
  using Acc = std::conditional_t<integral, IntAcc, FloatAcc>;
  using Output = double;
  static constexpr std::string_view overflow_message =
      "the variance is not finite (it overflows double, or a value is infinite or NaN)";
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept {
    if constexpr (integral)
      return {0, ExactSum<V>{0}, 0.0};
    else
      return {0, 0.0, 0.0};
  }
  SEXTANT_HD_INLINE static constexpr Acc lift(V x) noexcept {
    if constexpr (integral)
      return {1, static_cast<ExactSum<V>>(x), 0.0};
    else
      return {1, static_cast<double>(x), 0.0};
  }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const std::int64_t n = a.n + b.n;
    const double nb_over_n = static_cast<double>(b.n) / static_cast<double>(n);
    if constexpr (integral) {
      // mean_b - mean_a = (qb - qa) + (rb / nb - ra / na): the integer parts exactly.
      const detail::SplitMean ma = detail::split_mean(a.sum, a.n), mb = detail::split_mean(b.sum, b.n);
      const double delta = static_cast<double>(static_cast<StreamInt128>(mb.q) - ma.q) +
                           (static_cast<double>(mb.r) / static_cast<double>(b.n) -
                            static_cast<double>(ma.r) / static_cast<double>(a.n));
      return {n, a.sum + b.sum, a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * nb_over_n};
    } else {
      const double delta = b.mean - a.mean;
      return {n, a.mean + delta * nb_over_n,
              a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * nb_over_n};
    }
  }
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept {
    return a.n == 0 ? 0.0 : a.m2 / static_cast<double>(a.n);
  }
  SEXTANT_HD_INLINE static constexpr bool representable(Acc a) noexcept {
    if constexpr (integral)
      return detail::finite(a.m2);
    else
      return detail::finite(a.mean) && detail::finite(a.m2);
  }
};

// Calls f(A{}) with the built-in aggregate of `kind` over values of type V.
template <WindowValue V, class F>
decltype(auto) visit_stream_aggregate(StreamAggregateKind kind, F&& f) {
  switch (kind) {
    case StreamAggregateKind::sum:
      return f(SumAggregate<V>{});
    case StreamAggregateKind::count:
      return f(CountAggregate<V>{});
    case StreamAggregateKind::min:
      return f(MinAggregate<V>{});
    case StreamAggregateKind::max:
      return f(MaxAggregate<V>{});
    case StreamAggregateKind::avg:
      return f(AvgAggregate<V>{});
    case StreamAggregateKind::var:
      return f(VarAggregate<V>{});
    case StreamAggregateKind::argmin:
      return f(ArgMinAggregate<V>{});
    case StreamAggregateKind::argmax:
      return f(ArgMaxAggregate<V>{});
    case StreamAggregateKind::first:
      return f(FirstAggregate<V>{});
    case StreamAggregateKind::last:
      return f(LastAggregate<V>{});
  }
  detail::throw_kind_without_type("visit_stream_aggregate");
}

// The value type of an aggregate's output: the selected value's for the positional ones.
template <class Output>
struct OutputValue {
  using type = Output;
};
template <class V>
struct OutputValue<Selected<V>> {
  using type = V;
};

// The template keeps, beside the aggregate, how many tuples a pane or window holds: windows
// that received no tuple are never emitted, whatever the aggregate.
template <StreamAggregate A>
struct Partial {
  typename A::Acc acc;
  std::int64_t tuples;

  SEXTANT_HD_INLINE static constexpr Partial identity() noexcept { return {A::identity(), 0}; }
  SEXTANT_HD_INLINE static constexpr Partial lift(typename A::Input x, TupleContext c) noexcept {
    return {window::lift<A>(x, c), 1};
  }
  SEXTANT_HD_INLINE static constexpr Partial combine(const Partial& a, const Partial& b) noexcept {
    return {A::combine(a.acc, b.acc), a.tuples + b.tuples};
  }
};

// Whether a window's accumulator can be lowered (see `representable` above); aggregates that
// do not declare it always can.
template <StreamAggregate A>
SEXTANT_HD_INLINE constexpr bool representable(const typename A::Acc& a) noexcept {
  if constexpr (requires { A::representable(a); })
    return A::representable(a);
  else
    return true;
}
template <StreamAggregate A>
constexpr std::string_view overflow_message() noexcept {
  if constexpr (requires { A::overflow_message; })
    return A::overflow_message;
  else
    return "the aggregate cannot be represented";
}

// Throws Error (bad_input) naming the spec, the key and the window [start, end) whose value
// `problem` describes.
[[noreturn]] void throw_unrepresentable_window(std::string_view aggregate, std::string_view problem,
                                               std::uint32_t spec, std::uint32_t key, std::int64_t start,
                                               std::int64_t end);

}  // namespace sextant::window
