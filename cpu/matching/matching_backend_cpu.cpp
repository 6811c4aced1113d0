// The matching engine of a build without CUDA (api/backends.hpp): the CPU hook variants only; a GPU
// in the selection is refused (Error::unsupported, exit 4).
#include "api/backends.hpp"
#include "core/error.hpp"
#include "cpu/matching/match_on_scheduler.hpp"

namespace sextant::backends {

std::unique_ptr<matching::detail::MatchEngine> make_match_engine(const scheduler::Topology& machine,
                                                                 const matching::MatcherOptions& options) {
  if (matching::detail::names_gpu(options.devices) || options.placement == matching::Placement::partition)
    throw Error::unsupported(
        "this build of Sextant has no CUDA support: matching on a GPU is unavailable; use --devices cpu");
  matching::MatcherOptions cpu = options;
  if (cpu.devices.all) cpu.devices = DeviceSelection{false, {DeviceId{DeviceKind::cpu, -1}}};
  scheduler::Topology cores = machine;
  return std::make_unique<matching::SchedulerMatchEngine<matching::NoGpuHooks>>(cores, cpu,
                                                                                matching::NoGpuHooks{});
}

}  // namespace sextant::backends
