// ColumnVector<T>: a std::vector for result columns, whose resize(n) leaves the new numbers
// uninitialised instead of zero-filling them. Results are sized first and then written by many
// threads (or a device copy); std::vector's value-initialisation would be one more pass over that
// memory, on one thread, ahead of the writers, and it would take the memory's first-touch page
// faults there too. Everything else (copies, assign, insert, the (n, value) constructor) behaves as
// std::vector's: only a construction without arguments is left undone.
//
// Columns of a few MiB and more ask for transparent huge pages (core/huge_pages.hpp): results,
// the stream windows' dense rows and blocks are sized, then written in full, and their first
// touch is most of what a fresh one costs.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"

namespace sextant {

template <class T>
struct DefaultInitAllocator {
  using value_type = T;

  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: rebinding converts

  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    advise_huge_pages(p, n * sizeof(T));  // nothing below 4 MiB
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }

  // Default-initialisation: nothing at all for numbers.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const DefaultInitAllocator&, const DefaultInitAllocator&) noexcept { return true; }
};

template <class T>
using ColumnVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace sextant
