// Brute-force skycube oracles for the tests, straight from the definitions and independent of
// every algorithm under test (the reference skycube's (le, eq) masks included). O(n^2 d) per
// subspace: small inputs only. The public oracle, reference_skycube (cpu/skycube/), stays in the
// library because `--template reference` runs it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/lattice.hpp"

namespace sextant::testing {

// True when p dominates q in m: at least as good in every column of m, better in one.
inline bool dominates(const Dataset& data, PointId p, PointId q, Mask m) {
  bool strictly_better_somewhere = false;
  for (int j = 0; j < data.dims(); ++j) {
    if (((m >> j) & 1u) == 0) continue;
    if (data(p, j) > data(q, j)) return false;
    if (data(p, j) < data(q, j)) strictly_better_somewhere = true;
  }
  return strictly_better_somewhere;
}

// Skyline of one subspace: q is in it iff no p != q dominates q in m.
inline std::vector<PointId> brute_force_skyline(const Dataset& data, Mask m) {
  std::vector<PointId> out;
  const auto n = static_cast<PointId>(data.size());
  for (PointId q = 0; q < n; ++q) {
    bool dominated = false;
    for (PointId p = 0; p < n && !dominated; ++p) dominated = p != q && dominates(data, p, q, m);
    if (!dominated) out.push_back(q);
  }
  return out;
}

// The skycube one subspace at a time, every subspace of at most max_level columns.
inline skycube::Lattice brute_force_lattice(const Dataset& data, int max_level) {
  skycube::Lattice lattice(data.dims(), data.size(), max_level);
  for (Mask m = 1; m <= full_mask(data.dims()); ++m)
    if (level(m) <= max_level) lattice.skyline(m) = brute_force_skyline(data, m);
  return lattice;
}

// The extended skyline's size (points no other point is strictly better than in every column).
inline std::size_t brute_force_extended_skyline_size(const Dataset& data) {
  std::size_t count = 0;
  for (PointId p = 0; p < data.size(); ++p) {
    bool dominated = false;
    for (PointId q = 0; q < data.size() && !dominated; ++q) {
      bool all_less = true;
      for (int j = 0; j < data.dims() && all_less; ++j) all_less = data(q, j) < data(p, j);
      dominated = all_less;
    }
    count += dominated ? 0 : 1;
  }
  return count;
}

// S_m and S+_m \ S_m of the candidates by definition, O(k^2 d).
inline skycube::CuboidOutput brute_force_cuboid(const Dataset& data, std::span<const PointId> candidates,
                                                Mask m) {
  skycube::CuboidOutput out;
  for (const PointId p : candidates) {
    bool dominated = false;
    bool strictly = false;
    for (const PointId q : candidates) {
      bool le = true, lt_some = false, lt_all = true;
      for (int j = 0; j < data.dims(); ++j) {
        if ((m >> j & 1u) == 0) continue;
        le = le && data(q, j) <= data(p, j);
        lt_some = lt_some || data(q, j) < data(p, j);
        lt_all = lt_all && data(q, j) < data(p, j);
      }
      dominated = dominated || (le && lt_some);
      strictly = strictly || lt_all;
    }
    if (!dominated)
      out.skyline.push_back(p);
    else if (!strictly)
      out.extended_only.push_back(p);
  }
  return out;
}

}  // namespace sextant::testing
