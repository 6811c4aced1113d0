// A growable std::vector whose storage starts on a cache line, so that padded rows of 8 or 16
// floats never straddle two lines (core/aligned_buffer.hpp is the fixed-size counterpart).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace sextant::cpu::detail {

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t alignment{64};

  CacheAlignedAllocator() noexcept = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}

  T* allocate(std::size_t count) { return static_cast<T*>(::operator new(count * sizeof(T), alignment)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, alignment); }

  template <class U>
  friend bool operator==(const CacheAlignedAllocator&, const CacheAlignedAllocator<U>&) noexcept {
    return true;
  }
};

template <class T>
using AlignedVector = std::vector<T, CacheAlignedAllocator<T>>;

// The bytes the storage of some vectors holds.
template <class... Vectors>
std::size_t capacity_bytes(const Vectors&... v) noexcept {
  return (std::size_t{0} + ... + (v.capacity() * sizeof(typename Vectors::value_type)));
}

}  // namespace sextant::cpu::detail
