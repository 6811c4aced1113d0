// The matching engine of a build with CUDA (api/backends.hpp): the CPU hook variants on every core
// and the CCM hook (gpu/matching/match_gpu.hpp) on every GPU, registered here beside the GPU code;
// api/ never names them.
#include <tuple>

#include "api/backends.hpp"
#include "cpu/matching/match_on_scheduler.hpp"
#include "gpu/matching/match_gpu.hpp"
#include "gpu/pinned_memory.hpp"

namespace sextant::backends {

namespace {

struct GpuHooks {
  static constexpr bool copies_tables = true;
  // Prepared events in page-locked memory: the CCM hook copies a whole batch without staging.
  std::pmr::memory_resource* event_memory() const { return gpu::pinned_memory(); }
  auto operator()(const scheduler::SchedulerTeam& team) const {
    return std::tuple{
        matching::Offer{[&team](int worker) { return matching::gpu::MatchGpu(team.gpu_ordinal(worker)); },
                        matching::gpu::MatchGpu::can_run()}};
  }
};

}  // namespace

std::unique_ptr<matching::detail::MatchEngine> make_match_engine(const scheduler::Topology& machine,
                                                                 const matching::MatcherOptions& options) {
  return std::make_unique<matching::SchedulerMatchEngine<GpuHooks>>(machine, options, GpuHooks{});
}

}  // namespace sextant::backends
