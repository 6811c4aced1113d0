// A heap array aligned for SIMD and cache lines (64 bytes), sized once.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

#include "core/out_of_memory.hpp"

namespace sextant {

template <class T>
class AlignedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "AlignedBuffer holds plain values");

 public:
  static constexpr std::size_t alignment = 64;

  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t count) : size_(count) {
    if (count == 0) return;
    const std::size_t bytes = (count * sizeof(T) + alignment - 1) / alignment * alignment;
    if (beyond_this_machine(bytes)) throw_out_of_memory(bytes);
    data_.reset(static_cast<T*>(std::aligned_alloc(alignment, bytes)));
    if (!data_) throw_out_of_memory(bytes);
  }
  AlignedBuffer(const AlignedBuffer& other) : AlignedBuffer(other.size_) {
    std::copy(other.begin(), other.end(), begin());
  }
  AlignedBuffer& operator=(const AlignedBuffer& other) {
    if (this != &other) *this = AlignedBuffer(other);
    return *this;
  }
  AlignedBuffer(AlignedBuffer&&) noexcept = default;
  AlignedBuffer& operator=(AlignedBuffer&&) noexcept = default;

  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_.get()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_.get()[i]; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }
  std::span<T> span() noexcept { return {data(), size_}; }
  std::span<const T> span() const noexcept { return {data(), size_}; }

 private:
  struct Free {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace sextant
