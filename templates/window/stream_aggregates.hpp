// Aggregates of the stream-window family: a user type with lift, an associative and
// commutative combine, an identity and lower, callable from host and device code
// (SEXTANT_HD_INLINE). The six built-ins for the four value types:
//
//   sum    int32, int64 -> int64 (wraps modulo 2^64, never undefined); float, double -> double
//   count  any -> int64
//   min    any -> the value type (exact)
//   max    any -> the value type (exact)
//   avg    any -> double (sum / count; integer sums exact before the one division)
//   var    any -> double, the population variance (divide by n), combined with Chan et al.'s
//          pairwise update of (n, mean, M2), stable for long windows
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

template <class A>
concept StreamAggregate = requires(typename A::Input x, typename A::Acc a) {
  typename A::Input;
  typename A::Acc;
  typename A::Output;
  { A::name } -> std::convertible_to<std::string_view>;
  { A::identity() } -> std::same_as<typename A::Acc>;
  { A::lift(x) } -> std::same_as<typename A::Acc>;
  { A::combine(a, a) } -> std::same_as<typename A::Acc>;
  { A::lower(a) } -> std::same_as<typename A::Output>;
};

enum class StreamAggregateKind : std::uint8_t { sum, count, min, max, avg, var };

std::string_view to_string(StreamAggregateKind kind) noexcept;
// "sum|count|min|max|avg|var"; throws Error naming `parameter` and the valid names.
StreamAggregateKind parse_stream_aggregate(const char* parameter, std::string_view text);

// Sum, count, min and max are the count-window family's traits (aggregate_traits.hpp) with a
// name and an identity lower.
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
using SumAggregate = LoweredAggregate<V, AggregateKind::sum>;
template <WindowValue V>
using CountAggregate = LoweredAggregate<V, AggregateKind::count>;
template <WindowValue V>
using MinAggregate = LoweredAggregate<V, AggregateKind::min>;
template <WindowValue V>
using MaxAggregate = LoweredAggregate<V, AggregateKind::max>;

template <WindowValue V>
struct AvgAggregate {
  static constexpr std::string_view name = "avg";
  using Input = V;
  using Sum = std::conditional_t<std::is_integral_v<V>, std::int64_t, double>;
  struct Acc {
    Sum sum;
    std::int64_t n;
  };
  using Output = double;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept { return {Sum{0}, 0}; }
  SEXTANT_HD_INLINE static constexpr Acc lift(V x) noexcept { return {static_cast<Sum>(x), 1}; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept {
    return {SumAggregate<V>::combine(a.sum, b.sum), a.n + b.n};
  }
  // An empty window is never emitted; 0 keeps lower total.
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept {
    return a.n == 0 ? 0.0 : static_cast<double>(a.sum) / static_cast<double>(a.n);
  }
};

template <WindowValue V>
struct VarAggregate {
  static constexpr std::string_view name = "var";
  using Input = V;
  struct Acc {
    std::int64_t n;
    double mean;
    double m2;  // sum of squared deviations from the mean
  };
  using Output = double;
  SEXTANT_HD_INLINE static constexpr Acc identity() noexcept { return {0, 0.0, 0.0}; }
  SEXTANT_HD_INLINE static constexpr Acc lift(V x) noexcept { return {1, static_cast<double>(x), 0.0}; }
  SEXTANT_HD_INLINE static constexpr Acc combine(Acc a, Acc b) noexcept {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const std::int64_t n = a.n + b.n;
    const double delta = b.mean - a.mean;
    const double nb_over_n = static_cast<double>(b.n) / static_cast<double>(n);
    return {n, a.mean + delta * nb_over_n,
            a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * nb_over_n};
  }
  SEXTANT_HD_INLINE static constexpr Output lower(Acc a) noexcept {
    return a.n == 0 ? 0.0 : a.m2 / static_cast<double>(a.n);
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
      break;
  }
  return f(VarAggregate<V>{});
}

// The template keeps, beside the aggregate, how many tuples a pane or window holds: windows
// that received no tuple are never emitted, whatever the aggregate.
template <StreamAggregate A>
struct Partial {
  typename A::Acc acc;
  std::int64_t tuples;

  SEXTANT_HD_INLINE static constexpr Partial identity() noexcept { return {A::identity(), 0}; }
  SEXTANT_HD_INLINE static constexpr Partial lift(typename A::Input x) noexcept { return {A::lift(x), 1}; }
  SEXTANT_HD_INLINE static constexpr Partial combine(const Partial& a, const Partial& b) noexcept {
    return {A::combine(a.acc, b.acc), a.tuples + b.tuples};
  }
};

}  // namespace sextant::window
