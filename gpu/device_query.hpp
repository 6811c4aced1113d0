// What the CUDA runtime sees. Plain C++: callers need no CUDA headers. Defined only when
// the build has CUDA (core/config.hpp: SEXTANT_HAS_CUDA).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sextant::gpu {

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t shared_memory_per_block_optin = 0;  // bytes a block may use after opting in
  std::size_t l2_cache_bytes = 0;
  std::string pci_bus_id;
};

// Number of usable GPUs; 0 when there is no driver or no device (never throws for that).
int device_count() noexcept;
// Properties of GPU `ordinal`; throws Error if the ordinal is not a usable device.
GpuInfo device_info(int ordinal);
std::vector<GpuInfo> all_devices();

// Creates GPU `ordinal`'s context now (the calling thread's current device is left as it was), so
// that the first real call on it does not pay for that; a run can do it for every GPU at once while
// other work goes on. Throws Error on a CUDA error.
void initialise(int ordinal);
// The same without an exception: false where the context cannot be created. For warming GPUs up
// ahead of their use, whose own first call then reports the reason.
bool try_initialise(int ordinal) noexcept;

// Launches a kernel on `ordinal` that writes i*i+1 into n uint32 values and copies them back;
// returns them. A smoke test of the toolchain/driver pairing; throws Error on any CUDA error.
std::vector<unsigned> smoke_test(int ordinal, std::size_t n);

}  // namespace sextant::gpu
