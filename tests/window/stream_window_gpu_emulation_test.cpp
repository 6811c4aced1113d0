// The GPU stream-window algorithm on the host (runs everywhere, no GPU needed): the shared
// conformance body over the emulated executor, so the pane and window stages' control flow and
// per-element steps are checked on any machine and under the sanitizers.
#include "tests/window/stream_window_gpu_emulation.hpp"

#include <gtest/gtest.h>

#include "tests/window/stream_window_conformance.hpp"

using EmulatedGpu = sextant::window::detail::stream_gpu::EmulatedGpuStreamBackend;

// Small chunks: every multi-chunk path (snapshot, carry across chunks) runs.
template <>
struct sextant::testing::StreamBackendTraits<EmulatedGpu> {
  static EmulatedGpu::Config config() { return {0, 97}; }
  static std::string skip_reason() { return {}; }
};

INSTANTIATE_STREAM_WINDOW_CONFORMANCE(GpuEmulation, EmulatedGpu);
