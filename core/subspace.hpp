// Subspaces as bit masks: bit j <-> column j (0-based). Mask 0 is the empty subspace and
// is never used; a dataset of d columns has the 2^d - 1 subspaces 1 .. 2^d - 1.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sextant {

using Mask = std::uint32_t;
using PointId = std::uint32_t;

inline constexpr int max_columns = 32;          // a Mask has 32 bits
inline constexpr int max_skycube_columns = 20;  // 2^20 - 1 subspaces, 128 KiB of bits per point

constexpr Mask full_mask(int d) noexcept { return d >= 32 ? ~Mask{0} : (Mask{1} << d) - 1; }
constexpr int level(Mask m) noexcept { return std::popcount(m); }
constexpr bool is_submask(Mask sub, Mask of) noexcept { return (sub & of) == sub; }
constexpr std::size_t subspace_count(int d) noexcept { return (std::size_t{1} << d) - 1; }

// Position of subspace m in a per-point bitmap of 2^d - 1 bits (the paper's shift by one).
constexpr std::size_t bit_of(Mask m) noexcept { return std::size_t{m} - 1; }

// Calls f(sub) for every non-empty submask of m, in decreasing numeric order, m first.
template <class F>
constexpr void for_each_submask(Mask m, F&& f) {
  for (Mask s = m; s != 0; s = (s - 1) & m) f(s);
}

// All subspaces of a d-column dataset with exactly `lvl` columns, ascending.
std::vector<Mask> masks_at_level(int d, int lvl);

// The shape every skycube entry point accepts, with one message each: d in
// 1..max_skycube_columns (Error::argument on "d") and max_level in 1..d (on "max_level").
void check_skycube_shape(std::int64_t d, std::int64_t max_level);
// The column count alone, for callers where max_level means something else or nothing.
void check_skycube_columns(std::int64_t d);

// Parses "0,3,5" into a mask; throws Error naming `parameter` on bad or out-of-range columns.
Mask parse_column_list(const char* parameter, std::string_view text, int d);

}  // namespace sextant
