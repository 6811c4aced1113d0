// The CPU's count windows for api/ (api/backends.hpp), in every build.
#include "api/backends.hpp"
#include "cpu/window/count_window_cpu.hpp"

namespace sextant::backends {

std::string count_window_on_cpu(const window::CountWindowArgs& args,
                                const std::function<scheduler::SchedulerTeam&()>& team) {
  return window::count_window_on_cpu(args, team);
}

}  // namespace sextant::backends
