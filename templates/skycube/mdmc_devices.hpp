// MDMC on every device at once (paper 004, Algorithm 3 with the devices of Section 6): the leaf
// positions of S+ form one range that a DeviceTeam cuts into chunks sized per device (large on
// GPUs, small on CPU cores, adapted to what each shows), and every worker runs a filter + refine
// hook on its chunks. The hooks come as a list of variants (offers.hpp), any number per device
// kind: the team measures the variants each worker can run and keeps the fastest. Each worker owns its hooks
// and a HashCubePart; the parts are merged once at the end, so the hot path takes no lock. Hooks with per-run
// setup (PreparedMdmcHook, e.g. GPU buffers and the tree upload) are prepared once per worker before the
// range starts.
//
// A chunk that throws part-way is undone in its worker's part before the team re-runs it on
// another device, so the cube holds every point exactly once whatever failed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/task_team.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/mdmc.hpp"
#include "templates/skycube/offers.hpp"

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

}  // namespace detail

// The (partial) skycube of `data` up to level max_level (1 .. d) on every worker of `team`, with
// the MDMC hook variants `offers` (at least one runnable variant for some kind of worker); `host`
// merges the parts.
template <ExtendedSkylineHook Extended, QuadTreeHook Tree, DeviceTeam Team, TaskTeam Host, class... Makes>
SkycubeResult mdmc_on_devices(const Dataset& data, int max_level, Extended& extended, Tree& tree_builder,
                              Team& team, Host& host, Offer<Makes>... offers) {
  return detail::run_mdmc(data, max_level, extended, tree_builder, host, [&](const MdmcShared& shared) {
    const int workers = std::max(1, team.workers());
    std::vector<HashCubePart> parts(static_cast<std::size_t>(workers), HashCubePart(data.dims(), max_level));
    OfferedHooks<Makes...> hooks(workers, std::move(offers)...);
    const std::vector<TeamVariant> variants =
        hooks.variants([&](auto& made) { return detail::mdmc_chunk(made, shared, parts); });
    hooks.prepare(team, [&shared]<class Hook>(Hook& hook) {
      if constexpr (PreparedMdmcHook<Hook, MdmcShared>) hook.prepare(shared);
    });
    team.run_variants(shared.tree.size(), std::span<const TeamVariant>(variants), std::string_view("mdmc"),
                      Grain::range);
    return parts;
  });
}

}  // namespace sextant::skycube
