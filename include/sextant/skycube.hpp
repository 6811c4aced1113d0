// The skycube family (docs/skycube.md): compute_skycube and its options, the one-subspace
// skyline front door (skyline, api/skyline.hpp), the HashCube it returns
// and the per-subspace Lattice, and what writing your own hooks needs: the hook concepts, the
// offers that hand hooks to workers, and the templates STSC, SDSC and MDMC; the per-device
// statistics of a run.
#pragma once

#include "sextant/api/skycube.hpp"
#include "sextant/api/skyline.hpp"
#include "sextant/scheduler/statistics.hpp"  // SkycubeResult::statistics
#include "sextant/templates/skycube/hash_cube.hpp"
#include "sextant/templates/skycube/hooks.hpp"
#include "sextant/templates/skycube/lattice.hpp"
#include "sextant/templates/skycube/mdmc.hpp"
#include "sextant/templates/skycube/offers.hpp"
#include "sextant/templates/skycube/quad_tree.hpp"
#include "sextant/templates/skycube/sdsc.hpp"
#include "sextant/templates/skycube/skyline_devices.hpp"
#include "sextant/templates/skycube/stsc.hpp"
