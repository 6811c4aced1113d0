// The backends of a build without CUDA (api/backends.hpp): the CPU's hooks only; whatever needs
// a GPU is refused (Error::unsupported, exit 4).
#include "api/backends.hpp"
#include "api/stream_window_engine.hpp"
#include "core/error.hpp"
#include "cpu/skycube/skycube_on_scheduler.hpp"

namespace sextant::backends {

namespace {

[[noreturn]] void no_cuda(const std::string& what) {
  throw Error::unsupported("this build of Sextant has no CUDA support: " + what +
                           " on a GPU is unavailable; use "
                           "--device cpu");
}

}  // namespace

std::vector<scheduler::GpuInfo> gpus(const scheduler::Topology&) {
  return {};
}

int gpu_count() noexcept {
  return 0;
}

window::CountPlan count_window_on_gpu(int, const window::CountWindowArgs&, window::CountAlgorithm) {
  no_cuda("a count window");
}

window::CountPlan count_window_in_gpu_memory(int, const window::CountWindowArgs&, window::CountAlgorithm,
                                             void*) {
  no_cuda("a count window");
}

skycube::SkycubeResult skycube_on_scheduler(const Dataset& data, skycube::TemplateKind kind, int max_level,
                                            scheduler::Scheduler& s) {
  return skycube::skycube_on_scheduler(data, kind, max_level, s, skycube::NoMoreOffers{});
}

std::vector<PointId> skyline_on_scheduler(const Dataset& data, Mask subspace, scheduler::Scheduler& s) {
  return skycube::skyline_on_scheduler(data, subspace, s, skycube::NoMoreOffers{});
}

}  // namespace sextant::backends

namespace sextant::window::detail {

std::unique_ptr<StreamWindowEngine> make_gpu_stream_engine(ValueType, StreamAggregateKind,
                                                           const StreamWindowOptions&,
                                                           const StreamDeviceOptions&) {
  backends::no_cuda("a stream window");
}

HostBuffer allocate_gpu_host(int, std::size_t) {
  backends::no_cuda("a stream window");
}

}  // namespace sextant::window::detail
