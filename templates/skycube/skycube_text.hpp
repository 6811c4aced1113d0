// The skycube text format written by the CLI and read back by tests and tools:
//
//   # sextant skycube d=<d> n=<n> max_level=<L>
//   <mask> <count> <id> <id> ...
//
// one line per computed subspace (level <= max_level), masks 1 .. 2^d - 1 ascending, ids
// ascending, single spaces, no trailing space ("<mask> 0" for an empty skyline). Other lines
// starting with '#' are comments.
#pragma once

#include <iosfwd>
#include <string>

#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/lattice.hpp"

namespace sextant::skycube {

// Subspaces are formatted on the workers of `team` and written in order (the same bytes for any
// team). Throws Error (io) when the stream fails.
void write_skycube_text(std::ostream& out, const HashCube& cube, TeamRef team = {});

// Parses the format above strictly: the header is required before the first subspace line
// and every computed subspace must appear exactly once, in order. Errors name origin:line.
Lattice read_skycube_text(std::istream& in, const std::string& origin);

}  // namespace sextant::skycube
