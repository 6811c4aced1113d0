// The lattice-traversal skycube templates (STSC, SDSC) specialised for the CPU: extended
// skyline with ExtendedSkylineCpu, cuboids with the Hybrid-style cuboid hooks, tasks on OpenMP.
#pragma once

#include "core/dataset.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// options.threads: 0 = std::thread::hardware_concurrency(); options.max_level: 0 = d (the full
// skycube), else 1..d (a partial skycube); options.kind is ignored. An empty dataset gives an
// empty cube. Throws Error for d > max_skycube_columns, max_level outside 0..d or threads < 0.
SkycubeResult stsc_cpu(const Dataset& data, const SkycubeOptions& options);
SkycubeResult sdsc_cpu(const Dataset& data, const SkycubeOptions& options);

}  // namespace sextant::skycube
