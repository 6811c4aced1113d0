// <sextant/testing.hpp> (Sextant::testing) compiles on its own, with GoogleTest.
#include <sextant/testing.hpp>

static_assert(sizeof(sextant::testing::SkycubeRunner) > 0);
