#include "api/skycube_devices.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "api/machine.hpp"
#include "api/scheduler_omp_team.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "cpu/skycube/cuboid_cpu.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_variants.hpp"
#include "cpu/skycube/quad_tree_cpu.hpp"
#include "scheduler/team.hpp"
#include "templates/skycube/mdmc_devices.hpp"
#include "templates/skycube/sdsc.hpp"
#include "templates/skycube/stsc.hpp"
#if SEXTANT_HAS_CUDA
#include <mutex>

#include "gpu/device_query.hpp"
#include "gpu/skycube/cuboid_gpu.hpp"
#include "gpu/skycube/extended_skyline_gpu.hpp"
#include "gpu/skycube/mdmc_gpu.hpp"
#include "gpu/skycube/quad_tree_gpu.hpp"
#endif

namespace sextant::skycube {

namespace {

using scheduler::Scheduler;

// MDMC's chunks of S+ per device kind. A CPU core settles a point in microseconds to milliseconds;
// a GPU runs one block per point and needs thousands of points per launch to fill its
// multiprocessors. Chunks last at least a millisecond, so the scheduler's cost per chunk (a few
// microseconds; skycube_devices_bench measures it) stays a small fraction of the run.
struct MdmcChunking {
  static constexpr std::size_t min_cpu_chunk = 16;
  static constexpr std::size_t min_gpu_chunk = 4096;
  static constexpr double min_chunk_seconds = 1e-3;
  // One H200 filters and refines as fast as 120-270 cores (h200-x2: 0.16 s against 0.63 s on 32
  // cores for indep 500k x 12, 7.2 s against 60 s for anti 1M x 16); a lower guess errs on the
  // side that stealing corrects cheaply (the GPU hands a few chunks back).
  static constexpr double gpu_weight = 64;

  static scheduler::ThroughputModelPolicy policy() {
    scheduler::ThroughputModelPolicy p;
    p.min_cpu_chunk = min_cpu_chunk;
    p.min_gpu_chunk = min_gpu_chunk;
    p.min_chunk_seconds = min_chunk_seconds;
    p.gpu_weight = gpu_weight;
    return p;
  }
};

// The GPU hooks per template: a factory GPU worker -> hook, or nullptr where there is none (then
// the GPUs sit the run out).
auto mdmc_gpu_hooks([[maybe_unused]] const Scheduler& s) {
#if SEXTANT_HAS_CUDA
  return [&s](int worker) {
    const scheduler::WorkerInfo& w = s.workers()[static_cast<std::size_t>(worker)];
    MdmcGpuOptions options;
    options.gpu_ordinal = w.gpu_ordinal;
    options.insert_threads = w.threads();  // the cores the layout gave the worker
    return MdmcGpu(options);
  };
#else
  return nullptr;
#endif
}

#if SEXTANT_HAS_CUDA
// SDSC's GPU hooks: the dataset goes to each GPU once per run (the first of its host workers
// uploads it, the others wait), and every host worker gets its own hook (and CUDA stream) bound to
// it.
class SdscGpuHooks {
 public:
  SdscGpuHooks(const Scheduler& s, const Dataset& data) : scheduler_(&s), data_(&data) {
    for (const scheduler::WorkerInfo& w : s.workers())
      if (w.kind == DeviceKind::gpu && uploads_.size() <= static_cast<std::size_t>(w.gpu_ordinal))
        uploads_.resize(static_cast<std::size_t>(w.gpu_ordinal) + 1);
    for (auto& u : uploads_) u = std::make_unique<Upload>();
  }

  gpu::ParallelCuboidGpu operator()(int worker) {
    const int ordinal = scheduler_->workers()[static_cast<std::size_t>(worker)].gpu_ordinal;
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
  const Scheduler* scheduler_;
  const Dataset* data_;
  std::vector<std::unique_ptr<Upload>> uploads_;  // by GPU ordinal
};
#endif

// The SDSC GPU cuboid hooks, or nullptr in a build without CUDA (SDSC then runs on the CPU groups).
auto sdsc_gpu_hooks([[maybe_unused]] const Scheduler& s, [[maybe_unused]] const Dataset& data) {
#if SEXTANT_HAS_CUDA
  return SdscGpuHooks(s, data);
#else
  return nullptr;
#endif
}
constexpr bool has_sdsc_gpu_hook =
    !no_hook<decltype(sdsc_gpu_hooks(std::declval<const Scheduler&>(), std::declval<const Dataset&>()))>;

// SDSC's cuboids are often too small to fill a GPU: two host workers per GPU (a hook and a CUDA
// stream each) keep two cuboids in flight, as the single-GPU SDSC does.
constexpr int sdsc_workers_per_gpu = 2;

// MDMC's GPU host worker appends its GPU's bitmaps to a HashCube part; at d = 16 one core inserts
// slower than an H100 computes, so each GPU gets several cores (word positions split among them).
constexpr int mdmc_cores_per_gpu = 4;

bool names_gpu(const DeviceSelection& devices) {
  return std::any_of(devices.devices.begin(), devices.devices.end(),
                     [](const DeviceId& d) { return d.kind == DeviceKind::gpu; });
}

// The selection with the GPUs left out ("all" becomes "cpu").
DeviceSelection without_gpus(const DeviceSelection& devices) {
  if (devices.all) return DeviceSelection{false, {DeviceId{DeviceKind::cpu, -1}}};
  DeviceSelection out;
  for (const DeviceId& d : devices.devices)
    if (d.kind == DeviceKind::cpu) out.devices.push_back(d);
  return out;
}

// OpenMP threads for the extended skyline, before the scheduler's runs: the cores the run's
// workers own, at most the machine's hardware threads (a synthetic machine may claim more).
int host_threads(const Scheduler& s) {
  int cores = 0;
  for (const scheduler::WorkerInfo& w : s.workers()) cores += w.shares_cores ? 0 : w.threads();
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return cores > 0 ? std::min(cores, hardware) : hardware;
}

}  // namespace

DevicePlan plan_devices(const DeviceOptions& options) {
  DevicePlan plan;
  plan.machine = options.machine ? *options.machine : api::machine();
  plan.devices = options.devices;
  if (!plan.devices.all && plan.devices.devices.empty()) plan.devices.all = true;
  if (plan.machine.gpu_count() == 0 && names_gpu(plan.devices)) {
    const auto gpu = std::find_if(plan.devices.devices.begin(), plan.devices.devices.end(),
                                  [](const DeviceId& d) { return d.kind == DeviceKind::gpu; });
    const std::string why = !build::has_cuda && !options.machine ? "this build of Sextant has no CUDA support"
                                                                 : "no GPU found on this machine";
    throw Error::unsupported("cannot run on GPU " + to_string(*gpu) + ": " + why +
                             "; name CPU devices instead (all, cpu or numaN)");
  }
  plan.uses_gpus = plan.machine.gpu_count() > 0 && (plan.devices.all || names_gpu(plan.devices));
  return plan;
}

scheduler::SchedulerOptions scheduler_options(TemplateKind kind, const DevicePlan& plan, int threads,
                                              const DeviceOptions& options) {
  scheduler::SchedulerOptions o;
  o.layout.devices = plan.devices;
  o.layout.cpu_cores = threads;
  o.layout.gpu_own_core = true;
  o.counter_events = options.counters;
  o.faults = options.faults;
  switch (kind) {
    case TemplateKind::stsc:
      for (const DeviceId& d : plan.devices.devices)
        if (d.kind == DeviceKind::gpu)
          throw Error::unsupported("the stsc template cannot run on " + to_string(d) +
                                   ": it runs single-threaded cuboids on CPU cores only; name CPU devices "
                                   "(all, cpu or numaN) or use the mdmc template for GPUs");
      o.layout.devices = without_gpus(plan.devices);
      break;
    case TemplateKind::sdsc:
      o.layout.cpu = scheduler::CpuWorkers::per_group;
      o.layout.cores_per_group = 0;  // a NUMA node per worker: one OpenMP team per node
      o.layout.gpu_workers = sdsc_workers_per_gpu;
      if constexpr (!has_sdsc_gpu_hook) {
        if (names_gpu(plan.devices) && !plan.devices.wants_cpu())
          throw Error::unsupported(
              "SDSC has no GPU cuboid hook yet; name a CPU device too (e.g. cpu,gpu0) or use the mdmc "
              "template");
        o.layout.devices = without_gpus(plan.devices);
      }
      break;
    case TemplateKind::mdmc:
      o.layout.gpu_cores = mdmc_cores_per_gpu;
      break;
    case TemplateKind::reference:
    case TemplateKind::automatic:
      throw Error::internal("scheduler_options: no device layout for this template");
  }
  if (options.gpu_cores < 0)
    throw Error::argument("gpu cores", std::to_string(options.gpu_cores), ">= 0 (0 = the template's choice)");
  if (options.gpu_cores > 0) o.layout.gpu_cores = options.gpu_cores;
  return o;
}

namespace {

// The run on the scheduler's workers, with the serial phases (extended skyline, quad tree) on the
// hooks the caller chose: a GPU's when the run has one, the host's cores otherwise.
template <class Extended, class Tree>
SkycubeResult run_scheduled(const Dataset& data, TemplateKind kind, int max_level, Scheduler& s,
                            Extended& extended, Tree& tree) {
  api::SchedulerOmpTeam host(s);  // the lattice's bookkeeping between levels, on the same workers
  switch (kind) {
    case TemplateKind::stsc: {
      scheduler::SchedulerTeam team(s, scheduler::TeamMode::cpu_only,
                                    scheduler::FailureMode::retry_elsewhere);
      std::vector<cpu::SequentialCuboidCpu> hooks(static_cast<std::size_t>(team.workers()));
      return stsc(data, max_level, extended, std::span<cpu::SequentialCuboidCpu>(hooks), team, host);
    }
    case TemplateKind::sdsc: {
      scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers,
                                    scheduler::FailureMode::retry_elsewhere);
      const auto cpu_hooks = [&s](int worker) {
        cpu::ParallelCuboidCpu hook;
        hook.threads = s.workers()[static_cast<std::size_t>(worker)].threads();  // the group's cores
        return hook;
      };
      return sdsc_on_devices(data, max_level, extended, cpu_hooks, sdsc_gpu_hooks(s, data), team, host);
    }
    case TemplateKind::mdmc: {
      scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers,
                                    scheduler::FailureMode::retry_elsewhere);
      team.range_policy = MdmcChunking::policy();
      return std::apply(
          [&](auto... cpu) {
            if constexpr (no_hook<decltype(mdmc_gpu_hooks(s))>)
              return mdmc_on_devices(data, max_level, extended, tree, team, cpu...);
            else
              return mdmc_on_devices(data, max_level, extended, tree, team, cpu..., Offer{mdmc_gpu_hooks(s), true});
          },
          mdmc_cpu_offers());
    }
    case TemplateKind::reference:
    case TemplateKind::automatic:
      break;
  }
  throw Error::internal("compute_on_devices: not a scheduled template");
}

// The distinct GPUs among the run's workers, in worker order.
[[maybe_unused]] std::vector<int> gpu_ordinals(const Scheduler& s) {
  std::vector<int> out;
  for (const scheduler::WorkerInfo& w : s.workers())
    if (w.kind == DeviceKind::gpu && std::find(out.begin(), out.end(), w.gpu_ordinal) == out.end())
      out.push_back(w.gpu_ordinal);
  return out;
}

// The first GPU among the run's workers, or -1.
int first_gpu(const Scheduler& s) {
  for (const scheduler::WorkerInfo& w : s.workers())
    if (w.kind == DeviceKind::gpu) return w.gpu_ordinal;
  return -1;
}

}  // namespace

SkycubeResult compute_on_devices(const Dataset& data, TemplateKind kind, int max_level, int threads,
                                 const DeviceOptions& options) {
  const DevicePlan plan = plan_devices(options);
  Scheduler s(plan.machine, scheduler_options(kind, plan, threads, options));
  SkycubeResult result;
  [[maybe_unused]] const int gpu = first_gpu(s);
#if SEXTANT_HAS_CUDA
  if (gpu >= 0) {
    // The other GPUs' contexts are created while the first GPU computes the extended skyline and
    // the quad tree (0.1-0.3 s each, otherwise paid inside the scheduled phase). A failure here
    // is left to the worker, which meets it again and retires that GPU.
    std::vector<std::jthread> warm;
    for (const int ordinal : gpu_ordinals(s))
      if (ordinal != gpu)
        warm.emplace_back([ordinal] {
          try {
            gpu::initialise(ordinal);
          } catch (...) {
          }
        });
    gpu::ExtendedSkylineGpu extended(gpu);
    gpu::QuadTreeGpu tree(gpu);
    result = run_scheduled(data, kind, max_level, s, extended, tree);
    extended.times().add_to(result.device_times, "extended skyline");
    if (kind == TemplateKind::mdmc) tree.times().add_to(result.device_times, "quad tree");
  }
#endif
  if (gpu < 0) {
    cpu::ExtendedSkylineCpu extended{host_threads(s)};
    cpu::QuadTreeCpu tree{host_threads(s)};
    result = run_scheduled(data, kind, max_level, s, extended, tree);
  }
  result.statistics = std::make_shared<const scheduler::Statistics>(s.statistics());
  return result;
}

}  // namespace sextant::skycube
