// The built-in stream aggregates (six functions x four value types): the CPU specialisation
// instantiates its hot kernels for these once, per instruction set, in its own translation
// units; user-defined aggregates get the scalar kernel instantiated where they are used.
#pragma once

#include <cstdint>

#include "templates/window/stream_aggregates.hpp"

namespace sextant::window::detail {

template <class A>
inline constexpr bool builtin_stream_aggregate = false;
template <WindowValue V>
inline constexpr bool builtin_stream_aggregate<SumAggregate<V>> = true;
template <WindowValue V>
inline constexpr bool builtin_stream_aggregate<CountAggregate<V>> = true;
template <WindowValue V>
inline constexpr bool builtin_stream_aggregate<MinAggregate<V>> = true;
template <WindowValue V>
inline constexpr bool builtin_stream_aggregate<MaxAggregate<V>> = true;
template <WindowValue V>
inline constexpr bool builtin_stream_aggregate<AvgAggregate<V>> = true;
template <WindowValue V>
inline constexpr bool builtin_stream_aggregate<VarAggregate<V>> = true;

}  // namespace sextant::window::detail

// OF(X, V) for each stream value type V: the one list of them for the instantiations below.
#define SEXTANT_STREAM_FOR_EACH_VALUE(OF, X) \
  OF(X, std::int32_t) OF(X, std::int64_t) OF(X, float) OF(X, double)

// X(aggregate type) for each built-in, for explicit instantiations.
#define SEXTANT_STREAM_BUILTINS_OF(X, V)  \
  X(::sextant::window::SumAggregate<V>)   \
  X(::sextant::window::CountAggregate<V>) \
  X(::sextant::window::MinAggregate<V>)   \
  X(::sextant::window::MaxAggregate<V>)   \
  X(::sextant::window::AvgAggregate<V>)   \
  X(::sextant::window::VarAggregate<V>)
#define SEXTANT_STREAM_BUILTIN_AGGREGATES(X) SEXTANT_STREAM_FOR_EACH_VALUE(SEXTANT_STREAM_BUILTINS_OF, X)

// X(aggregate type) for each positional built-in (argmin, argmax, first, last: lifted with the
// tuple's timestamp, no SIMD kernel), whose stages are also compiled once in the CPU library.
#define SEXTANT_STREAM_POSITIONALS_OF(X, V) \
  X(::sextant::window::ArgMinAggregate<V>)  \
  X(::sextant::window::ArgMaxAggregate<V>)  \
  X(::sextant::window::FirstAggregate<V>)   \
  X(::sextant::window::LastAggregate<V>)
#define SEXTANT_STREAM_POSITIONAL_AGGREGATES(X) \
  SEXTANT_STREAM_FOR_EACH_VALUE(SEXTANT_STREAM_POSITIONALS_OF, X)
