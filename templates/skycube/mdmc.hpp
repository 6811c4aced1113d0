// MDMC, multiple-device-multiple-cuboid (paper 004, Algorithm 3): the point-parallel skycube
// template. Architecture-oblivious: it computes the extended skyline S+ (a hook), builds the
// static quad tree over S+ (a hook; shared, read-only), cuts the leaf positions into chunks and lets
// every worker of a team run the filter+refine hook on chunks, each worker filling its own
// HashCubePart; the parts are merged once at the end. Points outside S+ are dominated in every
// subspace and never stored.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "core/subspace.hpp"
#include "core/task_team.hpp"
#include "templates/skycube/distinct_points.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/quad_tree.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// What every device reads: the tree (flat arrays) and which subspace levels are wanted.
struct MdmcShared {
  const QuadTree& tree;
  int max_level = 0;  // 1 .. d; bits of higher levels need not be computed (the cube forces them)
};

// How the leaf positions are cut into tasks: about tasks_per_worker chunks per worker (dynamic
// scheduling evens out the very uneven per-point cost), never smaller than min_chunk points.
struct MdmcPolicy {
  std::size_t tasks_per_worker = 64;
  std::size_t min_chunk = 8;
};

namespace detail {

// The steps every MDMC entry shares: the checks, the extended skyline S+ (a hook), the quad tree
// over S+, then filter_refine(shared) -> std::vector<HashCubePart> over the leaf positions
// 0 .. tree.size()-1, and the merge of those parts into the cube on the workers of `team`.
template <ExtendedSkylineHook Extended, QuadTreeHook Tree, TaskTeam Team, class FilterRefine>
SkycubeResult run_mdmc(const Dataset& data, int max_level, Extended& extended, Tree& tree_builder, Team& team,
                       FilterRefine&& filter_refine) {
  const int d = data.dims();
  check_skycube_shape(d, max_level);

  SkycubeResult result;
  result.template_name = "mdmc";
  if (data.empty()) {
    result.cube = HashCube(d, 0, max_level);
    return result;
  }

  Stopwatch clock;
  // Every step below sees one point per distinct vector (timed with the extended skyline).
  const DistinctPoints distinct(data, team);
  const Dataset& points = distinct.data();
  const std::vector<PointId> skyline = extended.extended_skyline(points);
  result.extended_skyline_size = distinct.original_count(skyline);
  result.phases.add("extended skyline", clock.seconds());

  clock.restart();
  const QuadTree tree = tree_builder.quad_tree(points, skyline);
  result.phases.add("quad tree", clock.seconds());

  clock.restart();
  std::vector<HashCubePart> parts = filter_refine(MdmcShared{tree, max_level});
  result.phases.add("filter+refine", clock.seconds());

  clock.restart();
  result.cube =
      distinct.expand(HashCube::from_parts(d, points.size(), max_level, std::move(parts), team), team);
  result.phases.add("hashcube", clock.seconds());
  return result;
}

}  // namespace detail

// The (partial) skycube of `data` up to subspace level max_level (1 .. d). `prototype` is
// copied once per worker, so a hook keeps per-worker scratch in itself.
template <ExtendedSkylineHook Extended, QuadTreeHook Tree, MdmcHook<MdmcShared> Hook, TaskTeam Team>
SkycubeResult mdmc(const Dataset& data, int max_level, Extended& extended, Tree& tree_builder,
                   const Hook& prototype, Team& team, const MdmcPolicy& policy = {}) {
  return detail::run_mdmc(data, max_level, extended, tree_builder, team, [&](const MdmcShared& shared) {
    const auto workers = static_cast<std::size_t>(std::max(1, team.workers()));
    std::vector<Hook> hooks(workers, prototype);
    std::vector<HashCubePart> parts(workers, HashCubePart(data.dims(), max_level));
    const std::size_t s = shared.tree.size();
    const std::size_t chunk = std::max({std::size_t{1}, policy.min_chunk,
                                        s / (workers * std::max<std::size_t>(1, policy.tasks_per_worker))});
    const std::size_t tasks = (s + chunk - 1) / chunk;
    team.run_tasks(tasks, [&](std::size_t task, int worker) {
      const MdmcTasks<MdmcShared> range{shared, task * chunk, std::min(s, (task + 1) * chunk)};
      hooks[static_cast<std::size_t>(worker)].process(range, parts[static_cast<std::size_t>(worker)]);
    });
    return parts;
  });
}

}  // namespace sextant::skycube
