// The lattice traversal on a DeviceTeam, shared by STSC and SDSC on devices: every worker computes
// one cuboid at a time with a hook variant of its kind (the templates differ in the kind of hook:
// sequential for STSC, a whole device for SDSC, and in the team's workers).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "templates/skycube/lattice_traversal.hpp"
#include "templates/skycube/offers.hpp"

namespace sextant::skycube::detail {

template <ExtendedSkylineHook X, DeviceTeam D, TaskTeam H, class... Makes>
SkycubeResult lattice_on_devices(std::string_view name, const Dataset& data, int max_level, X& extended,
                                 D& device_team, H& host_team, Offer<Makes>... offers) {
  const int workers = std::max(1, device_team.workers());
  std::vector<InputScratch> scratch(static_cast<std::size_t>(workers));  // per worker
  OfferedHooks<Makes...> hooks(workers, std::move(offers)...);
  const auto run = [&](std::size_t count, auto&& compute) {
    const std::vector<TeamVariant> variants = hooks.variants([&compute](auto& made) {
      return [&made, &compute](std::size_t begin, std::size_t end, int worker) {
        for (std::size_t task = begin; task < end; ++task) compute(made.at(worker), task, worker);
      };
    });
    device_team.run_variants(count, std::span<const TeamVariant>(variants), name, Grain::task);
  };
  const auto top = [&](const CuboidInput& in, CuboidOutput& out) {
    run(1, [&in, &out](auto& hook, std::size_t, int) { hook.compute(in, out); });
  };
  const auto run_level = [&](LatticeRun& lattice, std::span<const Mask> masks) {
    run(masks.size(), [&lattice, masks, &scratch](auto& hook, std::size_t task, int worker) {
      compute_cuboid(hook, lattice, masks[task], scratch[static_cast<std::size_t>(worker)]);
    });
  };
  // A GPU hook's factory may upload the dataset: all GPUs at once, before the lattice; a failure
  // there is thrown at that worker's first cuboid.
  hooks.prepare(device_team, [](auto&) {});
  return run_lattice(std::string(name), data, max_level, CandidateRule::all_parents, extended, host_team, top,
                     run_level);
}

}  // namespace sextant::skycube::detail
