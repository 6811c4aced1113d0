// Sextant::testing (find_package(Sextant COMPONENTS testing), docs/extending.md "Checking your own
// hook"): the conformance bodies Sextant's own tests run, for checking a hook or an aggregate of
// your own with GoogleTest. The cuboid hook body against brute force on tie-heavy data, the
// skycube body against the reference skycube, the stream-window body for a user-defined
// aggregate, and the oracles and data they use. Needs GoogleTest (Sextant::testing links
// GTest::gtest), so <sextant/sextant.hpp> does not include it.
#pragma once

#include "sextant/testing/brute_force_skycube.hpp"
#include "sextant/testing/cuboid_conformance.hpp"
#include "sextant/testing/random_data.hpp"
#include "sextant/testing/skycube_conformance.hpp"
#include "sextant/testing/stream_aggregate_conformance.hpp"
#include "sextant/testing/stream_window_checks.hpp"
#include "sextant/testing/stream_window_reference.hpp"
