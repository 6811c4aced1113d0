// The program's global operator new: a failed allocation notes its size for the
// out-of-memory message (core/out_of_memory.hpp) before it throws, as the standard one would.
#include <cstdlib>
#include <new>

#include "core/out_of_memory.hpp"

namespace {

void* allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  for (;;) {
    if (void* p = std::malloc(bytes)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) sextant::throw_out_of_memory(bytes);
    handler();
  }
}

void* allocate_aligned(std::size_t bytes, std::align_val_t alignment) {
  const auto align = static_cast<std::size_t>(alignment);
  const std::size_t rounded = (bytes + align - 1) / align * align;
  for (;;) {
    if (void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) sextant::throw_out_of_memory(bytes);
    handler();
  }
}

}  // namespace

void* operator new(std::size_t bytes) {
  return allocate(bytes);
}
void* operator new[](std::size_t bytes) {
  return allocate(bytes);
}
void* operator new(std::size_t bytes, std::align_val_t a) {
  return allocate_aligned(bytes, a);
}
void* operator new[](std::size_t bytes, std::align_val_t a) {
  return allocate_aligned(bytes, a);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
