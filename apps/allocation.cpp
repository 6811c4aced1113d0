// The program's global operator new: a failed allocation notes its size for the
// out-of-memory message (core/out_of_memory.hpp) before it throws, as the standard one would.
// Every form is replaced, the non-throwing ones too, so that all memory comes from malloc and goes
// back to free (mixing them with a sanitizer's own operator new is an alloc-dealloc mismatch).
#include <cstdlib>
#include <new>

#include "core/out_of_memory.hpp"

namespace {

std::size_t aligned_size(std::size_t bytes, std::size_t align) {
  return bytes == 0 ? align : (bytes + align - 1) / align * align;
}

void* allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (sextant::beyond_this_machine(bytes)) sextant::throw_out_of_memory(bytes);
  for (;;) {
    if (void* p = std::malloc(bytes)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) sextant::throw_out_of_memory(bytes);
    handler();
  }
}

void* allocate_aligned(std::size_t bytes, std::align_val_t alignment) {
  const auto align = static_cast<std::size_t>(alignment);
  if (sextant::beyond_this_machine(bytes)) sextant::throw_out_of_memory(bytes);
  for (;;) {
    if (void* p = std::aligned_alloc(align, aligned_size(bytes, align))) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) sextant::throw_out_of_memory(bytes);
    handler();
  }
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void* operator new(std::size_t bytes, std::align_val_t a) { return allocate_aligned(bytes, a); }
void* operator new[](std::size_t bytes, std::align_val_t a) { return allocate_aligned(bytes, a); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept { return std::malloc(bytes == 0 ? 1 : bytes); }
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return std::malloc(bytes == 0 ? 1 : bytes);
}
void* operator new(std::size_t bytes, std::align_val_t a, const std::nothrow_t&) noexcept {
  return std::aligned_alloc(static_cast<std::size_t>(a), aligned_size(bytes, static_cast<std::size_t>(a)));
}
void* operator new[](std::size_t bytes, std::align_val_t a, const std::nothrow_t&) noexcept {
  return std::aligned_alloc(static_cast<std::size_t>(a), aligned_size(bytes, static_cast<std::size_t>(a)));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
