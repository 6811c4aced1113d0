#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"
#include "gpu/pinned_memory.hpp"

namespace sextant::gpu {

void* allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaHostAlloc(&p, bytes == 0 ? 1 : bytes, cudaHostAllocPortable);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(ErrorKind::resource, "cannot allocate " + std::to_string(bytes) +
                                         " bytes of page-locked host memory: " + cudaGetErrorString(status));
  }
  return p;
}

void free_pinned(void* p) noexcept {
  if (p != nullptr) cudaFreeHost(p);
}

namespace {

// cudaHostAlloc's blocks are page-aligned: any alignment up to a page holds.
class PinnedResource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t) override { return allocate_pinned(bytes); }
  void do_deallocate(void* p, std::size_t, std::size_t) override { free_pinned(p); }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace

std::pmr::memory_resource* pinned_memory() {
  static PinnedResource resource;
  return &resource;
}

}  // namespace sextant::gpu
