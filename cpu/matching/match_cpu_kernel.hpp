// The instruction-set-specific part of the CPU matching hook: the Bloom scan over a page's filter
// signatures (64 per page), defined in match_cpu_<isa>.cpp and compiled for that set. Everything
// else (key probes, row counting) is instruction-set free code in match_cpu.cpp, which calls the
// scan of the variant it runs, so no inline code is ever compiled for a set the CPU may lack.
#pragma once

#include <cstdint>

namespace sextant::matching::detail {

template <class Isa>
struct BloomScan {
  // Bit f set iff f < count and (blooms[f] & ~event_bloom) == 0. `blooms` holds a whole page
  // (policy::page_filters entries; entries >= count are read and ignored).
  static std::uint64_t survivors(const std::uint64_t* blooms, std::uint32_t count,
                                 std::uint64_t event_bloom) noexcept;
};

}  // namespace sextant::matching::detail
