// A parallel loop over a few large parts that carries the first exception out of the OpenMP
// region (an exception may not cross it).
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>

#include "templates/window/count_window_policy.hpp"

namespace sextant::window::detail {

template <class F>
void parallel_parts(int parts, int threads, F&& f) {
  if (parts <= 1 || threads <= 1) {
    for (int t = 0; t < parts; ++t) f(t);
    return;
  }
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int t = 0; t < parts; ++t) {
    try {
      f(t);
    } catch (...) {
#pragma omp critical(sextant_stream_parallel_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// Threads for a pass over `bytes` of memory (a table's first touch, a clear): one below
// policy::stream_parallel_fill_bytes.
inline int threads_for_bytes(std::uint64_t bytes, int threads) noexcept {
  return bytes >= policy::stream_parallel_fill_bytes ? threads : 1;
}

}  // namespace sextant::window::detail
