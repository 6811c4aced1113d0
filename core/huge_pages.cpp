#include "core/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace sextant {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
  if (p == nullptr || bytes < 2 * huge) return;
  const auto first = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const auto last = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint: errors ignored
}

}  // namespace sextant
