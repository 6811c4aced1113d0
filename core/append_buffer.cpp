#include "core/append_buffer.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sextant::detail {
namespace {

// From this size on, an array gets its own mapping: page faults then come in 2 MiB pages where
// the kernel grants huge pages (512 times fewer faults than 4 KiB pages).
constexpr std::size_t mapped_from = std::size_t{2} << 20;

#if defined(__linux__)
constexpr std::size_t huge_page = std::size_t{2} << 20;

bool mapped(std::size_t bytes) noexcept { return bytes >= mapped_from; }

// A mapping of `bytes` starting on a huge-page boundary (over-map, then trim both ends), so the
// kernel can back all of it with huge pages.
void* map(std::size_t bytes) {
  void* raw = mmap(nullptr, bytes + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + huge_page - 1) & ~(huge_page - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const std::uintptr_t tail = aligned + bytes;
  if (start + bytes + huge_page > tail) munmap(reinterpret_cast<void*>(tail), start + bytes + huge_page - tail);
  void* p = reinterpret_cast<void*>(aligned);
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint: fine if the kernel declines
  return p;
}
#endif

}  // namespace

void* regrow_storage(void* old, std::size_t old_bytes, std::size_t keep, std::size_t bytes) {
#if defined(__linux__)
  if (mapped(bytes)) {
    // A new aligned mapping and a copy (amortised: capacities at least double), not mremap,
    // which may move the pages off the huge-page boundary.
    void* p = map(bytes);
    if (keep != 0) std::memcpy(p, old, keep);
    if (old != nullptr) free_storage(old, old_bytes);
    return p;
  }
#else
  (void)old_bytes;
  (void)keep;
#endif
  void* p = std::realloc(old, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void free_storage(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  if (mapped(bytes)) {
    munmap(p, bytes);
    return;
  }
#else
  (void)bytes;
#endif
  std::free(p);
}

}  // namespace sextant::detail
