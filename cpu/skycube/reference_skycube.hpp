// The reference skycube: a simple, obviously-correct oracle that every skycube algorithm is
// tested against, also selectable from the CLI (--template reference). O(n^2 d) comparisons
// plus, per point, one submask enumeration per distinct (<=, ==) relationship to the others.
#pragma once

#include "core/dataset.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::skycube {

// Skylines of every subspace with at most max_level columns (a partial skycube when
// max_level < d). Throws Error for d > max_skycube_columns or max_level outside 1..d.
HashCube reference_skycube(const Dataset& data, int max_level);
// The full skycube (max_level = data.dims()).
HashCube reference_skycube(const Dataset& data);

}  // namespace sextant::skycube
