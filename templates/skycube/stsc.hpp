// Single-thread-single-cuboid (paper 004, Section 4.2.1, Algorithm 1): the lattice is walked top
// down; all cuboids of a level are independent tasks, each computed by one single-threaded
// cuboid hook, on a team of workers; a barrier separates the levels.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "templates/skycube/lattice_on_devices.hpp"
#include "templates/skycube/lattice_traversal.hpp"

namespace sextant::skycube {

// `cuboid_hooks` holds one hook per worker of `team` (worker w uses cuboid_hooks[w]); `host` runs
// the template's own bookkeeping (membership bits, HashCube). max_level is 1..d; levels above it
// are computed (lower levels derive from them) but not reported.
template <ExtendedSkylineHook X, SequentialCuboidHook C, TaskTeam T, TaskTeam H>
SkycubeResult stsc(const Dataset& data, int max_level, X& extended, std::span<C> cuboid_hooks, T& team,
                   H& host, CandidateRule rule = CandidateRule::all_parents) {
  const auto workers = static_cast<std::size_t>(team.workers());
  if (cuboid_hooks.size() < workers)
    throw Error::internal("stsc: " + std::to_string(cuboid_hooks.size()) + " cuboid hooks for a team of " +
                          std::to_string(workers) + " workers");
  std::vector<detail::InputScratch> scratch(workers);  // per worker
  const auto top = [&](const CuboidInput& in, CuboidOutput& out) { cuboid_hooks[0].compute(in, out); };
  const auto run_level = [&](detail::LatticeRun& run, std::span<const Mask> masks) {
    team.run_tasks(masks.size(), [&](std::size_t task, int worker) {
      const auto w = static_cast<std::size_t>(worker);
      detail::compute_cuboid(cuboid_hooks[w], run, masks[task], scratch[w]);
    });
  };
  return detail::run_lattice("stsc", data, max_level, rule, extended, host, top, run_level);
}

// The same with `team` doing the bookkeeping too.
template <ExtendedSkylineHook X, SequentialCuboidHook C, TaskTeam T>
SkycubeResult stsc(const Dataset& data, int max_level, X& extended, std::span<C> cuboid_hooks, T& team,
                   CandidateRule rule = CandidateRule::all_parents) {
  return stsc(data, max_level, extended, cuboid_hooks, team, team, rule);
}

// STSC on a DeviceTeam: every worker computes one cuboid at a time with a sequential cuboid hook
// of its kind; `offers` are the hook variants (offers.hpp), any number per device kind (the team
// measures those a worker can run and keeps the fastest). `host` runs the bookkeeping.
template <ExtendedSkylineHook X, DeviceTeam D, TaskTeam H, class... Makes>
SkycubeResult stsc_on_devices(const Dataset& data, int max_level, X& extended, D& device_team, H& host_team,
                              Offer<Makes>... offers) {
  static_assert((... && SequentialCuboidHook<std::invoke_result_t<Makes&, int>>),
                "STSC's offers must make sequential cuboid hooks");
  return detail::lattice_on_devices("stsc", data, max_level, extended, device_team, host_team,
                                    std::move(offers)...);
}

}  // namespace sextant::skycube
