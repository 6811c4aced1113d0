// Single-device-single-cuboid (paper 004, Section 4.2.2, Algorithm 2): the lattice is walked top
// down; each cuboid is computed by a parallel cuboid hook that uses a whole device, one cuboid at
// a time per device; with several devices, several cuboids of a level run at once.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "templates/skycube/lattice_traversal.hpp"
#include "templates/skycube/worker_hooks.hpp"

namespace sextant::skycube {

// `devices` holds one parallel hook per worker of `device_team` (a worker drives one device);
// `host_team` runs the template's own bookkeeping (membership bits, HashCube). max_level is 1..d.
template <ExtendedSkylineHook X, ParallelCuboidHook C, TaskTeam D, TaskTeam H>
SkycubeResult sdsc(const Dataset& data, int max_level, X& extended, std::span<C> devices, D& device_team,
                   H& host_team, CandidateRule rule = CandidateRule::all_parents) {
  const auto workers = static_cast<std::size_t>(device_team.workers());
  if (devices.size() < workers || workers == 0)
    throw Error::internal("sdsc: " + std::to_string(devices.size()) + " device hooks for a team of " +
                          std::to_string(workers) + " workers");
  std::vector<detail::InputScratch> scratch(workers);  // per device
  const auto top = [&](const CuboidInput& in, CuboidOutput& out) { devices[0].compute(in, out); };
  const auto run_level = [&](detail::LatticeRun& run, std::span<const Mask> masks) {
    device_team.run_tasks(masks.size(), [&](std::size_t task, int worker) {
      const auto w = static_cast<std::size_t>(worker);
      detail::compute_cuboid(devices[w], run, masks[task], scratch[w]);
    });
  };
  return detail::run_lattice("sdsc", data, max_level, rule, extended, host_team, top, run_level);
}

// SDSC on a DeviceTeam: the workers are whole devices (a CPU core group whose hook runs OpenMP on
// its cores, or a GPU), each computing one cuboid at a time with the parallel cuboid hook of its
// kind; the cuboids of a level are spread over them by the team. make_cpu(worker) /
// make_gpu(worker) make a worker's hook, once per worker before the lattice (make_gpu may be
// nullptr: no GPU cuboid hook, the GPUs sit the run out). `host_team` runs the bookkeeping.
// max_level is 1..d.
template <ExtendedSkylineHook X, class MakeCpu, class MakeGpu, DeviceTeam D, TaskTeam H>
SkycubeResult sdsc_on_devices(const Dataset& data, int max_level, X& extended, MakeCpu make_cpu,
                              MakeGpu make_gpu, D& device_team, H& host_team,
                              CandidateRule rule = CandidateRule::all_parents) {
  const int workers = std::max(1, device_team.workers());
  std::vector<detail::InputScratch> scratch(static_cast<std::size_t>(workers));  // per worker
  WorkerHooks cpu(std::move(make_cpu), workers);
  static_assert(ParallelCuboidHook<typename decltype(cpu)::Hook>,
                "make_cpu must make a parallel cuboid hook");
  auto gpu = [&] {
    if constexpr (no_hook<MakeGpu>) {
      return nullptr;
    } else {
      return WorkerHooks(std::move(make_gpu), workers);
    }
  }();
  // fn(task, worker) computing cuboid masks[task] with the worker's hook of `hooks`.
  const auto cuboids = [&scratch](auto& hooks, detail::LatticeRun& run, std::span<const Mask> masks) {
    if constexpr (std::is_null_pointer_v<std::remove_cvref_t<decltype(hooks)>>) {
      return nullptr;
    } else {
      static_assert(ParallelCuboidHook<typename std::remove_cvref_t<decltype(hooks)>::Hook>,
                    "the hook factories must make parallel cuboid hooks");
      return [&hooks, &run, masks, &scratch](std::size_t task, int worker) {
        detail::compute_cuboid(hooks.at(worker), run, masks[task], scratch[static_cast<std::size_t>(worker)]);
      };
    }
  };
  const auto top = [&](const CuboidInput& in, CuboidOutput& out) {
    const auto one = [&](auto& hooks) {
      if constexpr (std::is_null_pointer_v<std::remove_cvref_t<decltype(hooks)>>) {
        return nullptr;
      } else {
        return [&hooks, &in, &out](std::size_t, int worker) { hooks.at(worker).compute(in, out); };
      }
    };
    device_team.run_tasks(1, one(cpu), one(gpu));
  };
  const auto run_level = [&](detail::LatticeRun& run, std::span<const Mask> masks) {
    device_team.run_tasks(masks.size(), cuboids(cpu, run, masks), cuboids(gpu, run, masks));
  };
  // Every worker makes its hook up front (a GPU hook's factory may upload the dataset), all GPUs at
  // once; a failure there is thrown at that worker's first cuboid.
  const auto make = [](auto& hooks) {
    if constexpr (std::is_null_pointer_v<std::remove_cvref_t<decltype(hooks)>>) {
      return nullptr;
    } else {
      return [&hooks](int worker) { hooks.prepare(worker, [](auto&) {}); };
    }
  };
  device_team.for_each_worker(make(cpu), make(gpu));
  return detail::run_lattice("sdsc", data, max_level, rule, extended, host_team, top, run_level);
}

}  // namespace sextant::skycube
