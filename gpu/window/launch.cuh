// Internal: the launchers of the six algorithms (one translation unit each, so that they
// compile in parallel). Each expects validated arguments with K > 0 on the current device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/cuda_check.cuh"
#include "gpu/window/count_window_gpu.hpp"

namespace sextant::window::gpu::detail {

struct Launch {
  const CountPlan& plan;
  const CountWindowArgs& args;
  GpuWorkspace& workspace;
  cudaStream_t stream;
  int multiprocessors;
};

// Workspace slots.
inline constexpr int partials_slot = 0;
inline constexpr int scan_scratch_slot = 1;
inline constexpr int host_in_slot = 2;
inline constexpr int host_out_slot = 3;

void launch_gbl(const Launch& launch);
void launch_sh(const Launch& launch);
void launch_coop(const Launch& launch);
void launch_direct_prefix(const Launch& launch);
void launch_reduced_prefix(const Launch& launch);
void launch_block_scan(const Launch& launch);

// Values between the 16-byte boundary at or below `p` and `p`.
inline std::uint32_t head_shift(const void* p, std::size_t value_bytes) {
  return static_cast<std::uint32_t>((reinterpret_cast<std::uintptr_t>(p) % 16) / value_bytes);
}

// Raises a kernel's dynamic shared-memory limit once per size.
template <class Kernel>
void allow_shared(Kernel kernel, std::uint32_t bytes) {
  if (bytes > 48 * 1024)
    SEXTANT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace sextant::window::gpu::detail
