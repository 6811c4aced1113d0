// A 64-bit mixing function (SplitMix64's finaliser) for the applications' generators and the
// synthetic pipeline's draws: the same numbers on the host and on a GPU.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace sextant::pipeline::apps {

SEXTANT_HD_INLINE std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace sextant::pipeline::apps
