#include <cuda_runtime.h>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"

namespace sextant::gpu {

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" / "no driver" state
    return 0;
  }
  return count;
}

GpuInfo device_info(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw Error::argument("gpu", std::to_string(ordinal),
                          count == 0 ? std::string("no GPU found") : "0.." + std::to_string(count - 1),
                          "no such GPU");
  cudaDeviceProp p{};
  SEXTANT_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  char bus[32] = {};
  SEXTANT_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal));
  GpuInfo info;
  info.ordinal = ordinal;
  info.name = p.name;
  info.compute_major = p.major;
  info.compute_minor = p.minor;
  info.multiprocessors = p.multiProcessorCount;
  info.global_memory_bytes = p.totalGlobalMem;
  info.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
  info.l2_cache_bytes = static_cast<std::size_t>(p.l2CacheSize);
  info.pci_bus_id = bus;
  return info;
}

std::vector<GpuInfo> all_devices() {
  std::vector<GpuInfo> out;
  for (int i = 0, n = device_count(); i < n; ++i) out.push_back(device_info(i));
  return out;
}

namespace {
__global__ void square_plus_one(unsigned* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<unsigned>(i * i + 1);
}
}  // namespace

void initialise(int ordinal) {
  device_info(ordinal);  // validates the ordinal
  ScopedDevice scope(ordinal);
  SEXTANT_CUDA_CHECK(cudaFree(nullptr));
}

bool try_initialise(int ordinal) noexcept {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return false;
  const bool ok = cudaSetDevice(ordinal) == cudaSuccess && cudaFree(nullptr) == cudaSuccess;
  (void)cudaGetLastError();  // the failure is not this thread's to report
  (void)cudaSetDevice(previous);
  return ok;
}

std::vector<unsigned> smoke_test(int ordinal, std::size_t n) {
  device_info(ordinal);  // validates the ordinal
  ScopedDevice scope(ordinal);
  DeviceBuffer<unsigned> buf(n);
  std::vector<unsigned> host(n, 0xDEADBEEFu);  // poisoned: every element must be written
  if (n != 0) {
    const unsigned threads = 256;
    const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
    square_plus_one<<<blocks, threads>>>(buf.data(), n);
    SEXTANT_CUDA_CHECK_LAUNCH();
    SEXTANT_CUDA_CHECK(cudaMemcpy(host.data(), buf.data(), n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  }
  return host;
}

}  // namespace sextant::gpu
