// One subspace's skyline (the front door in api/skyline.hpp) on a DeviceTeam whose workers are
// whole devices: a CPU core group whose parallel cuboid hook runs an OpenMP team on its cores, or
// a GPU. The hooks are SDSC's parallel cuboid hooks, offered as variants (offers.hpp), with every
// point a candidate and CuboidInput::skyline_only set.
//
// One worker, or few points: one cuboid over every point. Several workers: the points are cut into
// ranges of consecutive ids, each worker computes the skylines of the ranges it takes (the team
// balances them), and one more cuboid over the union of those skylines gives the result. Exact: a
// dominated point is dominated by some skyline point (dominance is transitive and acyclic), which
// is in its own range's skyline, so the union holds every skyline point and a dominator of every
// other point it holds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/task_team.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/offers.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube {

// The skyline of `subspace` (a non-empty mask of data's columns), ids ascending.
template <DeviceTeam D, class... Makes>
std::vector<PointId> skyline_on_devices(const Dataset& data, Mask subspace, D& team, Offer<Makes>... offers) {
  static_assert((... && ParallelCuboidHook<std::invoke_result_t<Makes&, int>>),
                "the skyline's offers must make parallel cuboid hooks");
  const std::size_t n = data.size();
  std::vector<PointId> ids(n);
  std::iota(ids.begin(), ids.end(), PointId{0});
  if (n == 0) return ids;

  const int workers = std::max(1, team.workers());
  const std::size_t ranges =
      workers == 1 || n < policy::SkylineSplit::min_points
          ? 1
          : std::min(n / policy::SkylineSplit::min_range_points + 1,
                     static_cast<std::size_t>(workers) * policy::SkylineSplit::ranges_per_worker);
  const auto range = [&](std::size_t r) {
    const std::size_t begin = r * n / ranges;
    return std::span<const PointId>(ids).subspan(begin, (r + 1) * n / ranges - begin);
  };

  OfferedHooks<Makes...> hooks(workers, std::move(offers)...);
  hooks.prepare(team, [](auto&) {});
  std::vector<std::vector<PointId>> local(ranges);
  const auto run = [&](std::size_t count, std::string_view name, auto&& compute) {
    const std::vector<TeamVariant> variants = hooks.variants([&compute](auto& made) {
      return [&made, &compute](std::size_t begin, std::size_t end, int worker) {
        for (std::size_t task = begin; task < end; ++task) compute(made.at(worker), task);
      };
    });
    team.run_variants(count, std::span<const TeamVariant>(variants), name, Grain::task);
  };
  // Each task publishes its result only at the end: a task the team re-runs elsewhere after a
  // device failure starts afresh.
  run(ranges, "skyline", [&](auto& hook, std::size_t task) {
    CuboidOutput out;
    hook.compute(CuboidInput{data, range(task), subspace, true}, out);
    local[task] = std::move(out.skyline);
  });
  if (ranges == 1) return std::move(local[0]);

  std::vector<PointId> merged;  // ascending: the ranges are consecutive
  for (const auto& part : local) merged.insert(merged.end(), part.begin(), part.end());
  std::vector<PointId> result;
  run(1, "skyline-merge", [&](auto& hook, std::size_t) {
    CuboidOutput out;
    hook.compute(CuboidInput{data, merged, subspace, true}, out);
    result = std::move(out.skyline);
  });
  return result;
}

}  // namespace sextant::skycube
