// A growable array of plain values for append-heavy builders that reach gigabytes (the HashCube
// parts of MDMC): no per-element initialisation, so a writer may reserve room and then write
// branch-free (store every candidate, advance past the kept ones). Storage comes from realloc,
// which grows large blocks without copying on glibc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>

namespace sextant {

namespace detail {
// `old` (from here, or null) resized to `bytes` > 0, contents kept. Throws std::bad_alloc.
void* regrow_storage(void* old, std::size_t bytes);
void free_storage(void* p) noexcept;
}  // namespace detail

template <class T>
class AppendBuffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "AppendBuffer holds plain values");

 public:
  AppendBuffer() = default;
  AppendBuffer(const AppendBuffer& o) { append(o.span()); }
  AppendBuffer& operator=(const AppendBuffer& o) {
    if (this != &o) {
      size_ = 0;
      append(o.span());
    }
    return *this;
  }
  AppendBuffer(AppendBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  AppendBuffer& operator=(AppendBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~AppendBuffer() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

  // Room for `count` more elements; returns where they go (valid until the next reserve). Write
  // some prefix of them, then commit(k) makes k of them part of the array.
  T* reserve_more(std::size_t count) {
    if (capacity_ - size_ < count) {
      const std::size_t want = std::max({size_ + count, 2 * capacity_, std::size_t{16}});
      data_ = static_cast<T*>(detail::regrow_storage(data_, want * sizeof(T)));
      capacity_ = want;
    }
    return data_ + size_;
  }
  void commit(std::size_t count) noexcept { size_ += count; }

  void append(std::span<const T> values) {
    if (values.empty()) return;
    std::memcpy(reserve_more(values.size()), values.data(), values.size() * sizeof(T));
    commit(values.size());
  }
  // Removes the elements for which drop(element) holds, keeping the order of the others.
  template <class Drop>
  void erase_if(Drop&& drop) {
    size_ = static_cast<std::size_t>(std::remove_if(data_, data_ + size_, drop) - data_);
  }
  // Frees the storage.
  void release() noexcept {
    if (data_ != nullptr) detail::free_storage(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace sextant
