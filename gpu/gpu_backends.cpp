// The backends of a build with CUDA (api/backends.hpp): the CPU's hooks plus the GPUs'. The GPU
// hooks are registered here, beside their code; api/ never names them.
#include <algorithm>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "api/backends.hpp"
#include "cpu/skycube/skycube_on_scheduler.hpp"
#include "gpu/device_query.hpp"
#include "gpu/skycube/cuboid_gpu.hpp"
#include "gpu/skycube/extended_skyline_gpu.hpp"
#include "gpu/skycube/mdmc_gpu.hpp"
#include "gpu/skycube/quad_tree_gpu.hpp"
#include "gpu/window/count_window_gpu.hpp"

namespace sextant::backends {

std::vector<scheduler::GpuInfo> gpus(const scheduler::Topology& machine) {
  std::vector<scheduler::GpuInfo> out;
  for (const gpu::GpuInfo& g : gpu::all_devices())
    out.push_back({g.ordinal, scheduler::numa_node_of_pci_device(machine, g.pci_bus_id),
                   g.global_memory_bytes, g.name});
  return out;
}

int gpu_count() noexcept {
  return gpu::device_count();
}

window::CountPlan count_window_on_gpu(int ordinal, const window::CountWindowArgs& host_args,
                                      window::CountAlgorithm algorithm) {
  return window::gpu::aggregate_count_host(ordinal, host_args, algorithm);
}

window::CountPlan count_window_in_gpu_memory(int ordinal, const window::CountWindowArgs& args,
                                             window::CountAlgorithm algorithm, void* stream) {
  return window::gpu::aggregate_count_device(ordinal, args, algorithm, nullptr, stream);
}

namespace {

using scheduler::SchedulerTeam;

// SDSC's GPU hooks: the dataset goes to each GPU once per run (the first of its host workers
// uploads it, the others wait), and every host worker gets its own hook (and CUDA stream).
class SdscGpuHooks {
 public:
  SdscGpuHooks(const SchedulerTeam& team, const Dataset& data) : team_(&team), data_(&data) {
    for (int w = 0; w < team.workers(); ++w)
      if (team.kind(w) == DeviceKind::gpu)
        uploads_.resize(std::max(uploads_.size(), static_cast<std::size_t>(team.gpu_ordinal(w)) + 1));
    for (auto& u : uploads_) u = std::make_unique<Upload>();
  }

  gpu::ParallelCuboidGpu operator()(int worker) const {
    const int ordinal = team_->gpu_ordinal(worker);
    Upload& upload = *uploads_.at(static_cast<std::size_t>(ordinal));
    std::call_once(upload.once, [&] { upload.data = std::make_unique<gpu::GpuDataset>(*data_, ordinal); });
    gpu::SkylineGpuOptions options;
    options.gpu_ordinal = ordinal;
    options.cache_dataset = true;  // the template's distinct points, where the data has duplicates
    gpu::ParallelCuboidGpu hook(options);
    hook.bind(*upload.data);
    return hook;
  }

 private:
  struct Upload {
    std::once_flag once;
    std::unique_ptr<gpu::GpuDataset> data;
  };
  const SchedulerTeam* team_;
  const Dataset* data_;
  std::vector<std::unique_ptr<Upload>> uploads_;  // by GPU ordinal
};

// The GPU hook variants per template.
struct GpuOffers {
  const Dataset* data;

  auto sdsc(const SchedulerTeam& team) const {
    return std::tuple{skycube::Offer{
        [hooks = std::make_shared<SdscGpuHooks>(team, *data)](int worker) { return (*hooks)(worker); },
        true}};
  }
  // The skyline front door runs SDSC's cuboid hook over every point (one hook per host worker).
  auto skyline(const SchedulerTeam& team) const { return sdsc(team); }
  auto mdmc(const SchedulerTeam& team) const {
    return std::tuple{skycube::Offer{[&team](int worker) {
                                       skycube::MdmcGpuOptions options;
                                       options.gpu_ordinal = team.gpu_ordinal(worker);
                                       options.insert_threads = team.threads(worker);  // the worker's cores
                                       return skycube::MdmcGpu(options);
                                     },
                                     true}};
  }
};

// The distinct GPUs among the run's workers, in worker order.
std::vector<int> gpu_ordinals(const scheduler::Scheduler& s) {
  std::vector<int> out;
  for (const scheduler::WorkerInfo& w : s.workers())
    if (w.kind == DeviceKind::gpu && std::find(out.begin(), out.end(), w.gpu_ordinal) == out.end())
      out.push_back(w.gpu_ordinal);
  return out;
}

}  // namespace

skycube::SkycubeResult skycube_on_scheduler(const Dataset& data, skycube::TemplateKind kind, int max_level,
                                            scheduler::Scheduler& s) {
  const GpuOffers offers{&data};
  const std::vector<int> ordinals = gpu_ordinals(s);
  if (ordinals.empty()) return skycube::skycube_on_scheduler(data, kind, max_level, s, offers);
  // The serial phases run on the first GPU; the other GPUs' contexts are created meanwhile
  // (0.1-0.3 s each, otherwise paid inside the scheduled phase). A failure there is not lost: the
  // GPU's worker meets it again at its first chunk, and the scheduler retires that GPU.
  std::vector<std::jthread> warm;
  for (std::size_t i = 1; i < ordinals.size(); ++i)
    warm.emplace_back([ordinal = ordinals[i]] { gpu::try_initialise(ordinal); });
  gpu::ExtendedSkylineGpu extended(ordinals[0]);
  gpu::QuadTreeGpu tree(ordinals[0]);
  skycube::SkycubeResult result =
      skycube::skycube_on_scheduler(data, kind, max_level, s, extended, tree, offers);
  extended.times().add_to(result.device_times, "extended skyline");
  if (kind == skycube::TemplateKind::mdmc) tree.times().add_to(result.device_times, "quad tree");
  return result;
}

std::vector<PointId> skyline_on_scheduler(const Dataset& data, Mask subspace, scheduler::Scheduler& s) {
  return skycube::skyline_on_scheduler(data, subspace, s, GpuOffers{&data});
}

}  // namespace sextant::backends
