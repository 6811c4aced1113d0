// Exact duplicates collapsed once for every skycube template. Points whose whole vectors are equal
// (in minimisation form, -0.0 equal to 0.0, as dominance compares them) never dominate each other
// and are dominated by the same points, so they share every subspace's membership. The templates
// (run_lattice, run_mdmc) run on one representative per group, so their hooks see distinct vectors
// only, and the cube's ids are expanded to every member of each group when the result is written:
// the same cube, id for id, at the cost of the distinct vectors (tie-heavy data has few).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/dataset.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::skycube::detail {

class DistinctPoints {
 public:
  // Groups the rows of `data` (which must outlive this) by their vector, with hash tables on the
  // workers of `team` (ranges of rows) merged in row order; without duplicates (or when a sample of
  // a large dataset finds none) nothing is copied and data() is `data` itself.
  explicit DistinctPoints(const Dataset& data, TeamRef team = {});

  bool has_duplicates() const noexcept { return !offsets_.empty(); }
  // The representatives (the smallest id of each group, in ascending order), all-min columns.
  const Dataset& data() const noexcept { return has_duplicates() ? distinct_ : *original_; }
  std::size_t original_size() const noexcept { return original_->size(); }

  // The number of original points that the representatives `ids` (of data()) stand for.
  std::size_t original_count(std::span<const PointId> ids) const noexcept;
  // `cube` over data() as a cube over the original points: each representative's words go to
  // every member of its group. Word positions split over the workers of `team`.
  HashCube expand(HashCube cube, TeamRef team = {}) const;

 private:
  const Dataset* original_;
  Dataset distinct_;
  std::vector<std::uint32_t> offsets_;  // group g = members_[offsets_[g] .. offsets_[g + 1]); empty: none
  std::vector<PointId> members_;        // ascending within a group
};

}  // namespace sextant::skycube::detail
