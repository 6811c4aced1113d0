// atomic_combine<Agg>(address, value): *address = Agg::combine(*address, value), atomically,
// in global or shared memory (generic addressing). Native atomics where the hardware has
// them (64-bit add, 32/64-bit integer min/max, double add); a compare-and-swap loop for
// float/double min/max.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "templates/window/aggregate_traits.hpp"

namespace sextant::window::gpu::detail {

template <class Agg>
inline constexpr bool is_sum_like = std::is_same_v<Agg, Aggregate<typename Agg::Input, AggregateKind::sum>> ||
                                    std::is_same_v<Agg, Aggregate<typename Agg::Input, AggregateKind::count>>;
template <class Agg>
inline constexpr bool is_min = std::is_same_v<Agg, Aggregate<typename Agg::Input, AggregateKind::min>>;

template <class F>
__device__ __forceinline__ void cas_loop_32(float* address, float value, F combine) {
  auto* word = reinterpret_cast<unsigned*>(address);
  unsigned old = *word;
  while (true) {
    const unsigned desired = __float_as_uint(combine(__uint_as_float(old), value));
    if (desired == old) return;
    const unsigned seen = atomicCAS(word, old, desired);
    if (seen == old) return;
    old = seen;
  }
}

template <class F>
__device__ __forceinline__ void cas_loop_64(double* address, double value, F combine) {
  auto* word = reinterpret_cast<unsigned long long*>(address);
  unsigned long long old = *word;
  while (true) {
    const auto desired =
        static_cast<unsigned long long>(__double_as_longlong(combine(__longlong_as_double(old), value)));
    if (desired == old) return;
    const unsigned long long seen = atomicCAS(word, old, desired);
    if (seen == old) return;
    old = seen;
  }
}

template <class Agg>
__device__ __forceinline__ void atomic_combine(typename Agg::Acc* address, typename Agg::Acc value) {
  using Acc = typename Agg::Acc;
  if constexpr (is_sum_like<Agg>) {
    if constexpr (std::is_same_v<Acc, std::int64_t>)
      atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
    else
      atomicAdd(address, value);  // double
  } else if constexpr (std::is_same_v<Acc, std::int32_t>) {
    if constexpr (is_min<Agg>)
      atomicMin(reinterpret_cast<int*>(address), static_cast<int>(value));
    else
      atomicMax(reinterpret_cast<int*>(address), static_cast<int>(value));
  } else if constexpr (std::is_same_v<Acc, std::int64_t>) {
    if constexpr (is_min<Agg>)
      atomicMin(reinterpret_cast<long long*>(address), static_cast<long long>(value));
    else
      atomicMax(reinterpret_cast<long long*>(address), static_cast<long long>(value));
  } else if constexpr (std::is_same_v<Acc, float>) {
    cas_loop_32(address, value, [](float a, float b) { return Agg::combine(a, b); });
  } else {
    cas_loop_64(address, value, [](double a, double b) { return Agg::combine(a, b); });
  }
}

}  // namespace sextant::window::gpu::detail
