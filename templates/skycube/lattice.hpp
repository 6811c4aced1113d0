// The lattice view of a skycube: for every subspace m (1 .. 2^d - 1) its skyline ids,
// ascending. Converts both ways with the HashCube.
#pragma once

#include <cstddef>
#include <vector>

#include "core/subspace.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::skycube {

class Lattice {
 public:
  Lattice() = default;
  Lattice(int d, std::size_t n_points, int max_level);

  static Lattice from_hash_cube(const HashCube& cube);
  HashCube to_hash_cube() const;

  int dims() const noexcept { return d_; }
  int max_level() const noexcept { return max_level_; }
  std::size_t point_count() const noexcept { return n_; }

  // Skyline of m (empty for subspaces above max_level). m in 1 .. 2^d - 1.
  std::vector<PointId>& skyline(Mask m) { return skylines_[m]; }
  const std::vector<PointId>& skyline(Mask m) const { return skylines_[m]; }

  friend bool operator==(const Lattice&, const Lattice&) = default;

 private:
  int d_ = 0;
  int max_level_ = 0;
  std::size_t n_ = 0;
  std::vector<std::vector<PointId>> skylines_;  // index = mask; entry 0 unused
};

}  // namespace sextant::skycube
