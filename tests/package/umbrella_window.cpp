// <sextant/window.hpp> compiles on its own and declares both window families.
#include <sextant/window.hpp>
#include <type_traits>

static_assert(std::is_class_v<sextant::window::StreamWindow>);
static_assert(std::is_class_v<sextant::window::CountWindowResult>);
