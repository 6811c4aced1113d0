// The CPU's count windows for api/ (api/backends.hpp), in every build.
#include "api/backends.hpp"
#include "cpu/window/count_window_cpu.hpp"

namespace sextant::backends {

std::string count_window_on_cpu(const window::CountWindowArgs& args, scheduler::Scheduler& s) {
  return window::count_window_on_cpu(args, s);
}

}  // namespace sextant::backends
