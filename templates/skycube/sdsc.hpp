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
#include "templates/skycube/lattice_on_devices.hpp"
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
      const auto w = static_cast<std::size_t>(worker);
      detail::compute_cuboid(devices[w], run, masks[task], scratch[w]);
    });
  };
  return detail::run_lattice("sdsc", data, max_level, rule, extended, host_team, top, run_level);
}

// SDSC on a DeviceTeam: the workers are whole devices (a CPU core group whose hook runs OpenMP on
// its cores, or a GPU), each computing one cuboid at a time with a parallel cuboid hook of its
// kind; the cuboids of a level are spread over them by the team. `offers` are the hook variants
// (offers.hpp), any number per device kind; every worker makes its hooks once, before the
// lattice. `host_team` runs the bookkeeping. max_level is 1..d.
template <ExtendedSkylineHook X, DeviceTeam D, TaskTeam H, class... Makes>
SkycubeResult sdsc_on_devices(const Dataset& data, int max_level, X& extended, D& device_team, H& host_team,
                              Offer<Makes>... offers) {
  static_assert((... && ParallelCuboidHook<std::invoke_result_t<Makes&, int>>),
                "SDSC's offers must make parallel cuboid hooks");
  return detail::lattice_on_devices("sdsc", data, max_level, extended, device_team, host_team,
                                    std::move(offers)...);
}

}  // namespace sextant::skycube
