// The skycube templates on the scheduler's workers: the CPU backend's hook variants for every
// template, plus those another backend offers for its devices (`more`: the GPU backend's, see
// gpu/gpu_backends.cpp; NoMoreOffers in a CPU-only build). The serial phases (extended skyline,
// quad tree) run on the hooks the caller passes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <tuple>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "cpu/skycube/cuboid_variants.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_variants.hpp"
#include "cpu/skycube/quad_tree_cpu.hpp"
#include "scheduler/host_team.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "templates/skycube/mdmc_devices.hpp"
#include "templates/skycube/sdsc.hpp"
#include "templates/skycube/skycube_policy.hpp"
#include "templates/skycube/skyline_devices.hpp"
#include "templates/skycube/stsc.hpp"

namespace sextant::skycube {

// No devices beyond the CPU's.
struct NoMoreOffers {
  std::tuple<> sdsc(const scheduler::SchedulerTeam&) const { return {}; }
  std::tuple<> mdmc(const scheduler::SchedulerTeam&) const { return {}; }
  std::tuple<> skyline(const scheduler::SchedulerTeam&) const { return {}; }
};

namespace detail {

inline scheduler::ThroughputModelPolicy mdmc_range_policy() {
  scheduler::ThroughputModelPolicy p;
  p.min_cpu_chunk = policy::MdmcChunking::min_cpu_chunk;
  p.min_gpu_chunk = policy::MdmcChunking::min_gpu_chunk;
  p.min_chunk_seconds = policy::MdmcChunking::min_chunk_seconds;
  p.gpu_weight = policy::MdmcChunking::gpu_weight;
  return p;
}

}  // namespace detail

// OpenMP threads for the serial phases on the CPU: the cores the run's workers own, at most the
// machine's hardware threads (a synthetic machine may claim more).
inline int host_threads(const scheduler::Scheduler& s) {
  int cores = 0;
  for (const scheduler::WorkerInfo& w : s.workers()) cores += w.shares_cores ? 0 : w.threads();
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return cores > 0 ? std::min(cores, hardware) : hardware;
}

template <ExtendedSkylineHook Extended, QuadTreeHook Tree, class More>
SkycubeResult skycube_on_scheduler(const Dataset& data, TemplateKind kind, int max_level,
                                   scheduler::Scheduler& s, Extended& extended, Tree& tree,
                                   const More& more) {
  scheduler::HostTeam host(s);  // the bookkeeping between levels, on the same workers
  const auto on = [&](scheduler::TeamMode mode) {
    return scheduler::SchedulerTeam(s, mode, scheduler::FailureMode::retry_elsewhere);
  };
  switch (kind) {
    case TemplateKind::stsc: {
      auto team = on(scheduler::TeamMode::cpu_only);
      return std::apply(
          [&](auto... o) { return stsc_on_devices(data, max_level, extended, team, host, o...); },
          offers_of<cpu::SequentialCuboidCpuVariants>());
    }
    case TemplateKind::sdsc: {
      auto team = on(scheduler::TeamMode::all_workers);
      return std::apply(
          [&](auto... o) { return sdsc_on_devices(data, max_level, extended, team, host, o...); },
          std::tuple_cat(offers_of<cpu::ParallelCuboidCpuVariants>(
                             [&team](auto& hook, int worker) { hook.threads = team.threads(worker); }),
                         more.sdsc(team)));
    }
    case TemplateKind::mdmc: {
      auto team = on(scheduler::TeamMode::all_workers);
      team.range_policy = detail::mdmc_range_policy();
      return std::apply(
          [&](auto... o) { return mdmc_on_devices(data, max_level, extended, tree, team, host, o...); },
          std::tuple_cat(offers_of<MdmcCpuVariants>(), more.mdmc(team)));
    }
    case TemplateKind::reference:
    case TemplateKind::automatic:
      break;
  }
  throw Error::internal("skycube_on_scheduler: not a scheduled template");
}

// One subspace's skyline on the scheduler's workers: the CPU's parallel cuboid variants (each on
// its worker's cores) and those `more` offers.
template <class More>
std::vector<PointId> skyline_on_scheduler(const Dataset& data, Mask subspace, scheduler::Scheduler& s,
                                          const More& more) {
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers, scheduler::FailureMode::retry_elsewhere);
  return std::apply([&](auto... o) { return skyline_on_devices(data, subspace, team, o...); },
                    std::tuple_cat(offers_of<cpu::ParallelCuboidCpuVariants>([&team](auto& hook, int worker) {
                                     hook.threads = team.threads(worker);
                                   }),
                                   more.skyline(team)));
}

// The same with the serial phases on the CPU.
template <class More>
SkycubeResult skycube_on_scheduler(const Dataset& data, TemplateKind kind, int max_level,
                                   scheduler::Scheduler& s, const More& more) {
  cpu::ExtendedSkylineCpu extended{host_threads(s)};
  cpu::QuadTreeCpu tree{host_threads(s)};
  return skycube_on_scheduler(data, kind, max_level, s, extended, tree, more);
}

}  // namespace sextant::skycube
