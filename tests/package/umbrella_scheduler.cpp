// <sextant/scheduler.hpp> compiles on its own and declares the scheduler.
#include <sextant/scheduler.hpp>
#include <type_traits>

static_assert(std::is_class_v<sextant::scheduler::Scheduler>);
static_assert(std::is_class_v<sextant::scheduler::Topology>);
