// Single-device-single-cuboid (paper 004, Section 4.2.2, Algorithm 2): the lattice is walked top
// down; each cuboid is computed by a parallel cuboid hook that uses a whole device, one cuboid at
// a time per device; with several devices, several cuboids of a level run at once.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "templates/skycube/lattice_traversal.hpp"

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
      const Mask subspace = masks[task];
      const auto w = static_cast<std::size_t>(worker);
      devices[w].compute(run.input(subspace, scratch[w]), run.output(subspace));
    });
  };
  return detail::run_lattice("sdsc", data, max_level, rule, extended, host_team, top, run_level);
}

}  // namespace sextant::skycube
