// Skips a GPU test cleanly where the build has no CUDA or the machine no GPU.
#pragma once

#include <gtest/gtest.h>

#include "core/config.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/device_query.hpp"
#endif

namespace sextant::testing {

inline int gpu_count() {
#if SEXTANT_HAS_CUDA
  return gpu::device_count();
#else
  return 0;
#endif
}

}  // namespace sextant::testing

#define SEXTANT_REQUIRE_GPUS(n)                                                                 \
  do {                                                                                          \
    if (!::sextant::build::has_cuda) GTEST_SKIP() << "built without CUDA";                      \
    if (::sextant::testing::gpu_count() < (n)) GTEST_SKIP() << "needs " << (n) << " GPU(s)";    \
  } while (0)
