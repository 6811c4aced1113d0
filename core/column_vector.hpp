// ColumnVector<T>: a std::vector for result columns, whose resize(n) leaves the new numbers
// uninitialised instead of zero-filling them. Results are sized first and then written by many
// threads (or a device copy); std::vector's value-initialisation would be one more pass over that
// memory, on one thread, ahead of the writers, and it would take the memory's first-touch page
// faults there too. Everything else (copies, assign, insert, the (n, value) constructor) behaves as
// std::vector's: only a construction without arguments is left undone.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace sextant {

template <class T>
struct DefaultInitAllocator {
  using value_type = T;

  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: rebinding converts

  T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
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
