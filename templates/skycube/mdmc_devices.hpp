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
// another device, so the cube holds every point exactly once whatever failed. A device that kept
// its words (kept_words.hpp) and then failed loses all it had done: those ranges run again.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
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

// The leaf ranges of the parts whose kept words were lost with their device (the parts let go of
// them), ascending.
std::vector<KeptWords::LeafRange> take_lost(std::vector<HashCubePart>& parts);

// Leaf ranges laid end to end as one range [0, size()): a chunk [begin, end) of it is the pieces
// of the ranges it covers.
class JoinedRanges {
 public:
  explicit JoinedRanges(std::vector<KeptWords::LeafRange> ranges);
  std::size_t size() const noexcept { return starts_.back(); }
  template <class Chunk>
  void for_each_piece(std::size_t begin, std::size_t end, Chunk&& chunk) const {
    auto at = std::upper_bound(starts_.begin(), starts_.end(), begin) - 1;
    for (auto r = static_cast<std::size_t>(at - starts_.begin()); begin < end; ++r) {
      const std::size_t take = std::min(end, starts_[r + 1]) - begin;
      const std::size_t leaf = ranges_[r].first + (begin - starts_[r]);
      chunk(leaf, leaf + take);
      begin += take;
    }
  }

 private:
  std::vector<KeptWords::LeafRange> ranges_;
  std::vector<std::size_t> starts_;  // ranges_.size() + 1 prefix sums of the lengths
};

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
    // Each round loses devices for good (a device that lost its words takes no more), so the
    // rounds end; more than one per worker would be a bug.
    int rounds = 0;
    for (std::vector<KeptWords::LeafRange> lost; !(lost = detail::take_lost(parts)).empty();) {
      if (++rounds > workers) throw Error::internal("mdmc_on_devices: kept words lost in every round");
      const detail::JoinedRanges again(std::move(lost));
      const std::vector<TeamVariant> rerun = hooks.variants([&](auto& made) {
        return [&again, chunk = detail::mdmc_chunk(made, shared, parts)](std::size_t begin, std::size_t end,
                                                                         int worker) {
          again.for_each_piece(begin, end, [&](std::size_t b, std::size_t e) { chunk(b, e, worker); });
        };
      });
      team.run_variants(again.size(), std::span<const TeamVariant>(rerun), std::string_view("mdmc"),
                        Grain::range);
    }
    return parts;
  });
}

}  // namespace sextant::skycube
