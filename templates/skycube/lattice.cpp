#include "templates/skycube/lattice.hpp"

#include <string>

#include "core/error.hpp"

namespace sextant::skycube {
namespace {

constexpr Word all_ones = ~Word{0};

bool computed_in(Mask m, int d, int max_level) noexcept {
  return m != 0 && m <= full_mask(d) && level(m) <= max_level;
}

}  // namespace

Lattice::Lattice(int d, std::size_t n_points, int max_level) : d_(d), max_level_(max_level), n_(n_points) {
  check_skycube_shape(d, max_level);
  skylines_.resize(std::size_t{1} << d);
}

Lattice Lattice::from_hash_cube(const HashCube& cube) {
  if (cube.dims() == 0) return Lattice();
  Lattice lattice(cube.dims(), cube.point_count(), cube.max_level());
  for (Mask m = 1; m <= full_mask(lattice.d_); ++m)
    if (cube.computed(m)) lattice.skylines_[m] = cube.skyline(m);
  return lattice;
}

HashCube Lattice::to_hash_cube() const {
  if (d_ == 0) return HashCube();
  // Dense "dominated in" bitmaps, n x words: a point starts dominated everywhere and is
  // cleared in every subspace whose skyline lists it.
  const std::size_t words = words_for(d_);
  std::vector<Word> dominated(n_ * words, all_ones);
  for (Mask m = 1; m <= full_mask(d_); ++m) {
    const std::vector<PointId>& ids = skylines_[m];
    if (ids.empty()) continue;
    if (!computed_in(m, d_, max_level_))
      throw Error(ErrorKind::bad_argument, "Lattice::to_hash_cube: subspace " + std::to_string(m) + " has " +
                                               std::to_string(level(m)) + " columns, above max_level " +
                                               std::to_string(max_level_) + ", but lists skyline ids");
    const Word bit = Word{1} << (bit_of(m) % 32);
    for (const PointId id : ids) {
      if (id >= n_)
        throw Error(ErrorKind::bad_argument, "Lattice::to_hash_cube: subspace " + std::to_string(m) +
                                                 " lists point id " + std::to_string(id) +
                                                 " but there are only " + std::to_string(n_) + " points");
      dominated[std::size_t{id} * words + bit_of(m) / 32] &= ~bit;
    }
  }
  HashCubePart part(d_, max_level_);
  for (std::size_t id = 0; id < n_; ++id)
    part.insert(static_cast<PointId>(id), std::span<const Word>(dominated.data() + id * words, words));
  std::vector<HashCubePart> parts;
  parts.push_back(std::move(part));
  return HashCube::from_parts(d_, n_, max_level_, std::move(parts));
}

}  // namespace sextant::skycube
