// Waiting for an atomic to change: poll for a while (SchedulerOptions::idle_spin), then block.
// Waking a blocked thread costs tens of microseconds (more on virtual machines, where an idle vCPU
// halts); polling trades CPU time for that latency, as OpenMP runtimes do.
#pragma once

#include <atomic>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace sextant::scheduler::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

template <class T>
void spin_then_wait(const std::atomic<T>& value, T old, std::chrono::nanoseconds spin,
                    std::memory_order order = std::memory_order_acquire) noexcept {
  if (spin.count() > 0) {
    const auto deadline = std::chrono::steady_clock::now() + spin;
    for (unsigned i = 1; value.load(order) == old; ++i) {
      cpu_relax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) break;
    }
  }
  value.wait(old, order);  // returns at once if it changed while spinning
}

}  // namespace sextant::scheduler::detail
