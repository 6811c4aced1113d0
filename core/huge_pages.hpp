// Transparent huge pages for large blocks that are about to be written in full (input text,
// parsed columns): one fault per 2 MiB instead of one per 4 KiB, and a cheap unmap. Only a hint:
// where the kernel has no transparent huge pages, or keeps them for madvise'd memory and has
// none free, the pages stay 4 KiB and nothing else changes.
#pragma once

#include <cstddef>
#include <vector>

namespace sextant {

// Asks for huge pages on the 2 MiB-aligned part of [p, p + bytes); blocks below a few MiB are
// left alone. Call it before the block is first touched.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

// `v` resized to `count` value-initialised elements, its new storage advised huge pages before
// the fill touches it.
template <class T>
void resize_on_huge_pages(std::vector<T>& v, std::size_t count) {
  if (count > v.capacity()) {
    std::vector<T> fresh;
    fresh.reserve(count);
    advise_huge_pages(fresh.data(), count * sizeof(T));
    fresh.assign(v.begin(), v.end());
    v.swap(fresh);
  }
  v.resize(count);
}

}  // namespace sextant
