// Every CUDA runtime call and launch is checked; failures become sextant::Error with the
// call, file and line, and out-of-memory is reported as a resource error.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace sextant::gpu::detail {

[[noreturn]] inline void throw_cuda(cudaError_t status, const char* what, const char* file, int line) {
  const ErrorKind kind = status == cudaErrorMemoryAllocation ? ErrorKind::resource : ErrorKind::unsupported;
  throw Error(kind, std::string("CUDA error in ") + what + " at " + file + ":" + std::to_string(line) + ": " +
                        cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

}  // namespace sextant::gpu::detail

#define SEXTANT_CUDA_CHECK(call)                                                             \
  do {                                                                                       \
    const cudaError_t sextant_status_ = (call);                                              \
    if (sextant_status_ != cudaSuccess)                                                      \
      ::sextant::gpu::detail::throw_cuda(sextant_status_, #call, __FILE__, __LINE__);        \
  } while (0)

// After a <<<>>> launch: catches bad configurations immediately (not the kernel's own faults,
// which surface at the next synchronising call, itself checked).
#define SEXTANT_CUDA_CHECK_LAUNCH() SEXTANT_CUDA_CHECK(cudaGetLastError())
