// The CPU's count windows for api/ (api/backends.hpp), in every build.
#include "api/backends.hpp"
#include "cpu/window/count_window_cpu.hpp"

namespace sextant::backends {

std::string count_window_on_cpu(const window::CountWindowArgs& args, int threads,
                                const std::function<scheduler::Topology()>& machine) {
  return window::count_window_on_cpu(args, threads, machine);
}

}  // namespace sextant::backends
