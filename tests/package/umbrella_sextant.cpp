// <sextant/sextant.hpp> compiles on its own and holds every family and the build configuration.
#include <sextant/sextant.hpp>
#include <type_traits>

static_assert(std::is_class_v<sextant::skycube::HashCube>);
static_assert(std::is_class_v<sextant::window::StreamWindow>);
static_assert(std::is_class_v<sextant::scheduler::Scheduler>);
static_assert(sextant::build::version[0] != '\0');
