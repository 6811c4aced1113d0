// atomic_combine<Agg>(address, value): *address = Agg::combine(*address, value), atomically,
// in global or shared memory (generic addressing), for the aggregate's declared AtomicOp.
// Native atomics where the hardware has them (64-bit add, 32/64-bit integer min/max, double
// add); a compare-and-swap loop over Agg::combine for float/double min/max.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "templates/window/aggregate_traits.hpp"

namespace sextant::window::gpu::detail {

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

// Only for aggregates that declare their atomic (AtomicAggregate): an aggregate without one does
// not compile here, and neither does an algorithm that combines with it.
template <AtomicAggregate Agg>
__device__ __forceinline__ void atomic_combine(typename Agg::Acc* address, typename Agg::Acc value) {
  using Acc = typename Agg::Acc;
  constexpr bool is_min = Agg::atomic == AtomicOp::min;
  static_assert(
      Agg::atomic != AtomicOp::add || std::is_same_v<Acc, std::int64_t> || std::is_same_v<Acc, double>,
      "device atomic add: int64 or double accumulators");
  if constexpr (Agg::atomic == AtomicOp::add) {
    if constexpr (std::is_same_v<Acc, std::int64_t>)
      atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
    else
      atomicAdd(address, value);  // double
  } else if constexpr (std::is_same_v<Acc, std::int32_t>) {
    if constexpr (is_min)
      atomicMin(reinterpret_cast<int*>(address), static_cast<int>(value));
    else
      atomicMax(reinterpret_cast<int*>(address), static_cast<int>(value));
  } else if constexpr (std::is_same_v<Acc, std::int64_t>) {
    if constexpr (is_min)
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
