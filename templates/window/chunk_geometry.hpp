// The slicing every count-window algorithm shares (host and device): the column is cut into
// slide-long chunks, chunk j = [j*S, j*S + S). With W = q*S + r (0 <= r < S), window k is
//
//     C[k] + C[k+1] + ... + C[k+q-1] + A[k+q]
//
// where C[j] aggregates all of chunk j and A[j] its first r values (A is empty when r == 0).
// Only two partials per slide exist whatever W and S are (the paper slices by gcd(W, S),
// which for W = 1000, S = 7 means one partial per value); S > W is the case q = 0, where a
// window is A[k] and the rest of every chunk (the gap) is never read.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "templates/window/count_window.hpp"

namespace sextant::window {

struct ChunkGeometry {
  std::uint64_t windows = 0;      // K
  std::uint64_t used = 0;         // positions read: (K-1)*S + W, 0 without windows
  std::uint64_t length = 0;       // W
  std::uint64_t slide = 0;        // S, the chunk length
  std::uint64_t full_chunks = 0;  // q = W / S
  std::uint64_t rest = 0;         // r = W % S
  std::uint64_t read_length = 0;  // values read from each chunk's start: S if q > 0, else r
  std::uint64_t chunks = 0;       // K + q: C is used for j < K + q - 1, A for q <= j < K + q

  SEXTANT_HD_INLINE constexpr std::uint64_t fan_out() const noexcept {
    return full_chunks + (rest != 0 ? 1 : 0);
  }
  // The first window containing position `pos` or any later position: smallest k with
  // k*S + W > pos.
  SEXTANT_HD_INLINE constexpr std::uint64_t first_window_ending_after(std::uint64_t pos) const noexcept {
    return pos < length ? 0 : (pos - length) / slide + 1;
  }
  // The last window starting at or before `pos` (pos < used).
  SEXTANT_HD_INLINE constexpr std::uint64_t last_window_starting_by(std::uint64_t pos) const noexcept {
    const std::uint64_t k = pos / slide;
    return k < windows ? k : windows - 1;
  }
  // Whether window k lies entirely inside [begin, end).
  SEXTANT_HD_INLINE constexpr bool window_inside(std::uint64_t k, std::uint64_t begin,
                                                 std::uint64_t end) const noexcept {
    return k * slide >= begin && k * slide + length <= end;
  }
};

SEXTANT_HD_INLINE constexpr ChunkGeometry make_geometry(std::uint64_t n, std::uint64_t length,
                                                        std::uint64_t slide) noexcept {
  ChunkGeometry g;
  g.length = length;
  g.slide = slide;
  g.windows = n < length ? 0 : (n - length) / slide + 1;
  g.used = g.windows == 0 ? 0 : (g.windows - 1) * slide + length;
  g.full_chunks = length / slide;
  g.rest = length % slide;
  g.read_length = g.full_chunks > 0 ? slide : g.rest;
  g.chunks = g.windows == 0 ? 0 : g.windows + g.full_chunks;
  return g;
}

inline ChunkGeometry make_geometry(const CountWindowProblem& p) noexcept {
  return make_geometry(p.n, p.spec.length, p.spec.slide);
}

}  // namespace sextant::window
