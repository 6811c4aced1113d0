// The per-item steps of building MDMC's quad tree (quad_tree.hpp), callable from host code and
// CUDA kernels alike, so every builder (serial, multi-core, GPU) computes bit-identical pivots,
// labels and leaf keys.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"
#include "core/subspace.hpp"

namespace sextant::skycube::detail {

// First position in sorted[lo, hi) whose value is >= x (lower bound) / > x (upper bound).
SEXTANT_HD_INLINE std::size_t first_not_below(const float* sorted, std::size_t lo, std::size_t hi, float x) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
SEXTANT_HD_INLINE std::size_t first_above(const float* sorted, std::size_t lo, std::size_t hi, float x) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (!(x < sorted[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Splits the sorted values [lo, hi) at a pivot: values < pivot go left, the rest right. The
// middle value, or, when it equals the smallest one (ties), the next larger value, so that a part
// with two distinct values always splits. An empty part gets `fallback` (no point compares with it).
struct PivotSplit {
  float pivot;
  std::size_t mid;
};
SEXTANT_HD_INLINE PivotSplit split_sorted(const float* sorted, std::size_t lo, std::size_t hi,
                                          float fallback) {
  if (lo >= hi) return {fallback, lo};
  float pivot = sorted[lo + (hi - lo) / 2];
  std::size_t mid = first_not_below(sorted, lo, hi, pivot);
  if (mid == lo) {
    const std::size_t next = first_above(sorted, lo, hi, pivot);
    if (next < hi) {
      pivot = sorted[next];
      mid = next;
    }
  }
  return {pivot, mid};
}

// The seven pivots of a column (median, quartile of each half, octile of each quarter) from its
// s values sorted ascending.
SEXTANT_HD_INLINE void column_pivots(const float* sorted, std::size_t s, float* out) {
  const PivotSplit m = split_sorted(sorted, 0, s, s ? sorted[s / 2] : 0.0f);
  const PivotSplit q0 = split_sorted(sorted, 0, m.mid, m.pivot);
  const PivotSplit q1 = split_sorted(sorted, m.mid, s, m.pivot);
  out[0] = m.pivot;
  out[1] = q0.pivot;
  out[2] = q1.pivot;
  out[3] = split_sorted(sorted, 0, q0.mid, q0.pivot).pivot;
  out[4] = split_sorted(sorted, q0.mid, m.mid, q0.pivot).pivot;
  out[5] = split_sorted(sorted, m.mid, q1.mid, q1.pivot).pivot;
  out[6] = split_sorted(sorted, q1.mid, s, q1.pivot).pivot;
}

// The leaf-order key of a path over d <= 20 columns: (median, quartile, octile) masks, 3d bits.
SEXTANT_HD_INLINE std::uint64_t leaf_key(Mask median, Mask quartile, Mask octile, int d) {
  return (static_cast<std::uint64_t>(median) << (2 * d)) | (static_cast<std::uint64_t>(quartile) << d) |
         octile;
}

// The leaf key of a value vector (d floats) under the pivots (7 per column, see column_pivots).
// Values equal to a pivot go up.
SEXTANT_HD_INLINE std::uint64_t path_key(const float* pivots, int d, const float* values) {
  Mask median = 0, quartile = 0, octile = 0;
  for (int j = 0; j < d; ++j) {
    const float* p = pivots + 7 * j;
    const float v = values[j];
    const int half = v >= p[0] ? 1 : 0;
    const int quarter = 2 * half + (v >= p[1 + half] ? 1 : 0);
    median |= static_cast<Mask>(half) << j;
    quartile |= static_cast<Mask>(quarter & 1) << j;
    octile |= static_cast<Mask>(v >= p[3 + quarter] ? 1 : 0) << j;
  }
  return leaf_key(median, quartile, octile, d);
}

}  // namespace sextant::skycube::detail
