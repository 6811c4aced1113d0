// The backends of a build without CUDA (api/backends.hpp): the CPU's hooks only.
#include "api/backends.hpp"
#include "cpu/skycube/skycube_on_scheduler.hpp"

namespace sextant::backends {

std::vector<scheduler::GpuInfo> gpus(const scheduler::Topology&) {
  return {};
}

skycube::SkycubeResult skycube_on_scheduler(const Dataset& data, skycube::TemplateKind kind, int max_level,
                                            scheduler::Scheduler& s) {
  return skycube::skycube_on_scheduler(data, kind, max_level, s, skycube::NoMoreOffers{});
}

}  // namespace sextant::backends
