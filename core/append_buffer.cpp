#include "core/append_buffer.hpp"

#include <cstdlib>
#include <new>

#include "core/huge_pages.hpp"
#include "core/out_of_memory.hpp"

namespace sextant::detail {

// realloc: glibc moves large blocks by remapping their pages (no copy), and the remapped block
// keeps its huge-page advice. Dedicated huge-page mappings were measured 3x slower for MDMC's
// HashCube parts (copy on growth, faults that still came in 4 KiB pages), so there are none.
void* regrow_storage(void* old, std::size_t bytes) {
  if (beyond_this_machine(bytes)) throw_out_of_memory(bytes);
  void* p = std::realloc(old, bytes);
  if (p == nullptr) throw_out_of_memory(bytes);
  advise_huge_pages(p, bytes);
  return p;
}

void free_storage(void* p) noexcept {
  std::free(p);
}

}  // namespace sextant::detail
