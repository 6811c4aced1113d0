// <sextant/skycube.hpp> compiles on its own and declares the skycube family.
#include <sextant/skycube.hpp>
#include <type_traits>

static_assert(std::is_class_v<sextant::skycube::HashCube>);
static_assert(std::is_class_v<sextant::skycube::SkycubeOptions>);
