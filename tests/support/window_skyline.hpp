// A block-nested-loops skyline (Börzsönyi et al.): an oracle for inputs too large for the O(n^2)
// brute force, written from the definition and independent of every algorithm under test. The
// window holds the points no point seen so far dominates; each new point is dropped when a window
// point dominates it, and evicts the window points it dominates. O(n * |skyline|).
#pragma once

#include <algorithm>
#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"

namespace sextant::testing {

// True when p dominates q in m: <= in every column of m, < in one.
inline bool dominates_in(const Dataset& data, PointId p, PointId q, Mask m) {
  bool better = false;
  for (int j = 0; j < data.dims(); ++j) {
    if ((m >> j & 1u) == 0) continue;
    if (data(p, j) > data(q, j)) return false;
    better = better || data(p, j) < data(q, j);
  }
  return better;
}

// True when p is < q in every column of m.
inline bool strictly_dominates_in(const Dataset& data, PointId p, PointId q, Mask m) {
  for (int j = 0; j < data.dims(); ++j)
    if ((m >> j & 1u) != 0 && !(data(p, j) < data(q, j))) return false;
  return true;
}

// The skyline of every point in m, ascending.
inline std::vector<PointId> window_skyline(const Dataset& data, Mask m) {
  std::vector<PointId> window;
  for (PointId p = 0; p < data.size(); ++p) {
    bool dropped = false;
    for (const PointId w : window)
      if (dominates_in(data, w, p, m)) {
        dropped = true;
        break;
      }
    if (dropped) continue;
    std::erase_if(window, [&](PointId w) { return dominates_in(data, p, w, m); });
    window.push_back(p);
  }
  std::sort(window.begin(), window.end());
  return window;
}

// S+ in m: the points no point strictly dominates. If any point strictly dominates p, a skyline
// point does (take a skyline point dominating that one), so the skyline alone decides.
inline std::vector<PointId> window_extended_skyline(const Dataset& data, Mask m) {
  const std::vector<PointId> sky = window_skyline(data, m);
  std::vector<PointId> out;
  for (PointId p = 0; p < data.size(); ++p)
    if (std::none_of(sky.begin(), sky.end(), [&](PointId s) { return strictly_dominates_in(data, s, p, m); }))
      out.push_back(p);
  return out;
}

}  // namespace sextant::testing
