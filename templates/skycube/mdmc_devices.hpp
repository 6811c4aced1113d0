// MDMC on every device at once (paper 004, Algorithm 3 with the devices of Section 6): the leaf
// positions of S+ form one range that a DeviceTeam cuts into chunks sized per device (large on
// GPUs, small on CPU cores, adapted to what each shows), and every worker runs the filter + refine
// hook of its kind on its chunks. Each worker owns a hook (made by the caller's factory for that
// worker) and a HashCubePart; the parts are merged once at the end, so the hot path takes no lock.
// Hooks with per-run setup (PreparedMdmcHook, e.g. GPU buffers and the tree upload) are prepared
// once per worker before the range starts.
//
// A chunk that throws part-way is undone in its worker's part before the team re-runs it on
// another device, so the cube holds every point exactly once whatever failed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/mdmc.hpp"
#include "templates/skycube/task_team.hpp"
#include "templates/skycube/worker_hooks.hpp"

namespace sextant::skycube {

namespace detail {

// Runs hook.process over the chunk; on an exception, removes what it inserted and rethrows.
template <class Hook>
void process_chunk(Hook& hook, const MdmcTasks<MdmcShared>& tasks, HashCubePart& part) {
  try {
    hook.process(tasks, part);
  } catch (...) {
    const auto ids = tasks.shared.tree.ids().subspan(tasks.begin, tasks.end - tasks.begin);
    std::vector<PointId> undo(ids.begin(), ids.end());
    std::sort(undo.begin(), undo.end());
    part.erase_if([&](PointId id) { return std::binary_search(undo.begin(), undo.end(), id); });
    throw;
  }
}

template <class Hooks>
auto mdmc_chunk(Hooks& hooks, const MdmcShared& shared, std::vector<HashCubePart>& parts) {
  static_assert(MdmcHook<typename Hooks::Hook, MdmcShared>, "the factory must make an MDMC hook");
  return [&hooks, &shared, &parts](std::size_t begin, std::size_t end, int worker) {
    process_chunk(hooks.at(worker), MdmcTasks<MdmcShared>{shared, begin, end},
                  parts[static_cast<std::size_t>(worker)]);
  };
}

template <class Hooks>
auto mdmc_setup(Hooks& hooks, const MdmcShared& shared) {
  return [&hooks, &shared](int worker) {
    hooks.prepare(worker, [&shared](auto& hook) {
      if constexpr (PreparedMdmcHook<std::remove_cvref_t<decltype(hook)>, MdmcShared>) hook.prepare(shared);
    });
  };
}

}  // namespace detail

// The (partial) skycube of `data` up to level max_level (1 .. d) on every worker of `team`.
// make_cpu(worker) / make_gpu(worker) make the MDMC hook a CPU / GPU worker uses; make_gpu may be
// nullptr (no GPU hook: GPUs sit the run out).
template <ExtendedSkylineHook Extended, QuadTreeHook Tree, class MakeCpu, class MakeGpu, DeviceTeam Team>
SkycubeResult mdmc_on_devices(const Dataset& data, int max_level, Extended& extended, Tree& tree_builder,
                              MakeCpu make_cpu, MakeGpu make_gpu, Team& team) {
  return detail::run_mdmc(data, max_level, extended, tree_builder, [&](const MdmcShared& shared) {
    const int workers = std::max(1, team.workers());
    std::vector<HashCubePart> parts(static_cast<std::size_t>(workers), HashCubePart(data.dims(), max_level));
    WorkerHooks cpu(std::move(make_cpu), workers);
    const std::size_t points = shared.tree.size();
    if constexpr (no_hook<MakeGpu>) {
      team.for_each_worker(detail::mdmc_setup(cpu, shared), nullptr);
      team.run_range(points, detail::mdmc_chunk(cpu, shared, parts), nullptr);
    } else {
      WorkerHooks gpu(std::move(make_gpu), workers);
      team.for_each_worker(detail::mdmc_setup(cpu, shared), detail::mdmc_setup(gpu, shared));
      team.run_range(points, detail::mdmc_chunk(cpu, shared, parts), detail::mdmc_chunk(gpu, shared, parts));
    }
    return parts;
  });
}

}  // namespace sextant::skycube
