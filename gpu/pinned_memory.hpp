// Page-locked host memory usable by every GPU: data that lives there crosses PCIe at full speed,
// without a staging copy. Plain C++: callers need no CUDA header (built only with CUDA).
#pragma once

#include <cstddef>
#include <memory_resource>
#include <vector>

namespace sextant::gpu {

// Throws Error (resource) when the allocation fails.
void* allocate_pinned(std::size_t bytes);
void free_pinned(void* p) noexcept;

// A memory resource over allocate_pinned (the same object for every call): for containers whose
// contents a GPU copies, e.g. the Matcher's prepared events.
std::pmr::memory_resource* pinned_memory();

template <class T>
struct PinnedAllocator {
  using value_type = T;
  PinnedAllocator() noexcept = default;
  template <class U>
  PinnedAllocator(const PinnedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_pinned(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { free_pinned(p); }
  template <class U>
  bool operator==(const PinnedAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using PinnedVector = std::vector<T, PinnedAllocator<T>>;

}  // namespace sextant::gpu
