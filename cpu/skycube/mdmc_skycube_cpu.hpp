// MDMC on the CPU: the public entry of the point-parallel skycube template with the CPU hooks
// (extended skyline, filter + refine) on OpenMP threads.
#pragma once

#include "core/dataset.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// The (partial) skycube of `data`. options.threads: 0 = every core; options.max_level: 0 = d,
// else 1..d; options.kind is not looked at. Throws Error for d > max_skycube_columns, a
// max_level outside 0..d or negative threads. An empty dataset gives an empty cube.
SkycubeResult mdmc_cpu(const Dataset& data, const SkycubeOptions& options = {});

}  // namespace sextant::skycube
