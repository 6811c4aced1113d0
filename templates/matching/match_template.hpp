// The matching template (paper 002, section 3, run on every device at once): a batch of prepared
// events is cut into event ranges that a DeviceTeam hands to the hooks of every worker (CPU cores
// and GPUs alike, each with the variants registered for its kind; the team measures them and
// keeps the fastest); each hook sets its events' interface bits; the template turns the bits and
// the hits into results. Hooks that hold a copy of the tables on their device are synchronised
// with the tables' delta first (for_each_worker, GPUs concurrently).
//
// Filters partitioned over GPUs (tables too large for one): every GPU holds one shard and matches
// the whole batch against it; the hooks OR their bits into the same bitmap words (atomically:
// std::atomic_ref) and the template merges the hits.
//
// Hooks persist across batches (a GPU keeps its copy of the tables, a core its scratch): one slot
// per (variant, worker), made on first use. A failure while making or synchronising a hook is kept
// and thrown at that worker's first chunk, where the team moves the work to other devices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/task_team.hpp"
#include "core/worker_hooks.hpp"
#include "templates/matching/hooks.hpp"
#include "templates/matching/match_results.hpp"
#include "templates/matching/prepared_events.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::matching {

using sextant::Offer;
using sextant::offers_of;

// The hooks of a list of offers, persistent across batches.
template <class... Makes>
class MatchHooks {
 public:
  static_assert(sizeof...(Makes) > 0, "offer at least one hook");
  static_assert((MatchHook<typename WorkerHooks<Makes>::Hook> && ...), "an offer must make a matching hook");

  MatchHooks(int workers, Offer<Makes>... offers)
      : hooks_{Offered<Makes>{WorkerHooks<Makes>(std::move(offers.make), workers), offers.runnable}...} {}

  // Calls f(hooks) for every offer (hooks: its WorkerHooks, ::Hook its type, plus runnable()).
  template <class F>
  void for_each(F&& f) {
    std::apply([&](auto&... h) { (f(h), ...); }, hooks_);
  }

  // Whether some offer holds a copy of the tables on its device.
  static constexpr bool has_synced = (SyncedMatchHook<typename WorkerHooks<Makes>::Hook> || ...);

  // Brings every hook with a device copy up to date; shards(worker) lists the shards the worker's
  // device holds. A failure is kept for the worker's first chunk.
  template <DeviceTeam Team, class Shards>
  void sync(Team& team, const MatchTables& tables, const Shards& shards) {
    if constexpr (has_synced) {
      team.for_each_worker([&](int worker) {
        for_each([&](auto& hooks) {
          using H = typename std::remove_reference_t<decltype(hooks)>::Hook;
          if constexpr (SyncedMatchHook<H>) {
            if (hooks.runnable() && H::device_kind == team.kind(worker))
              hooks.prepare(worker, [&](H& hook) { hook.sync(tables, shards(worker)); });
          }
        });
      });
    }
  }

  // The team's variants for one batch: fn(begin, end, worker) matches that range on the worker's
  // hook, appending hits to hits[worker].
  std::vector<TeamVariant> variants(const MatchBatch& batch, std::vector<std::vector<FilterHit>>& hits) {
    std::vector<TeamVariant> out;
    for_each([&](auto& hooks) {
      using H = typename std::remove_reference_t<decltype(hooks)>::Hook;
      bool fallback = false;
      if constexpr (requires { H::fallback; }) fallback = H::fallback;
      out.push_back({H::name, H::device_kind, hooks.runnable(),
                     [&hooks, &batch, &hits](std::size_t begin, std::size_t end, int worker) {
                       hooks.at(worker).match(batch, static_cast<std::uint32_t>(begin),
                                              static_cast<std::uint32_t>(end),
                                              hits[static_cast<std::size_t>(worker)]);
                     },
                     fallback});
    });
    return out;
  }

  // The first runnable hook of `kind` on `worker` that has not failed, or nothing: used by the
  // partitioned mode, where each GPU runs the whole batch itself.
  template <class F>
  bool with_hook(int worker, DeviceKind kind, F&& f) {
    bool done = false;
    for_each([&](auto& hooks) {
      using H = typename std::remove_reference_t<decltype(hooks)>::Hook;
      if (done || !hooks.runnable() || H::device_kind != kind || hooks.failed(worker)) return;
      f(hooks.at(worker));
      done = true;
    });
    return done;
  }

 private:
  // An offer's hooks and whether this machine can run them.
  template <class Make>
  struct Offered : WorkerHooks<Make> {
    Offered(WorkerHooks<Make> hooks, bool runnable)
        : WorkerHooks<Make>(std::move(hooks)), runnable_(runnable) {}
    bool runnable() const noexcept { return runnable_; }
    bool runnable_;
  };
  std::tuple<Offered<Makes>...> hooks_;
};

// Scratch of the template kept across batches.
struct MatchScratch {
  std::vector<std::uint64_t> bitmaps;
  std::vector<std::vector<FilterHit>> hits;  // per worker
  std::vector<ShardView> shards;
};

// The batch hooks see, with zeroed bitmaps for `events`.
inline MatchBatch make_batch(const MatchTables& tables, const PreparedEvents& events, bool want_filters,
                             MatchScratch& scratch, int workers) {
  MatchBatch batch;
  batch.tables = &tables;
  scratch.shards.clear();
  for (std::uint32_t s = 0; s < tables.shard_count(); ++s) scratch.shards.push_back(tables.shard(s).view());
  batch.shards = scratch.shards;
  batch.events = events.view();
  batch.interfaces = tables.interface_count();
  batch.words = std::max<std::uint32_t>(1, (batch.interfaces + 63) / 64);
  scratch.bitmaps.assign(static_cast<std::size_t>(events.size()) * batch.words, 0);
  batch.bitmaps = scratch.bitmaps.data();
  batch.want_filters = want_filters;
  scratch.hits.resize(static_cast<std::size_t>(std::max(workers, 1)));
  for (auto& h : scratch.hits) h.clear();
  return batch;
}

// One batch on every worker of `team`: event ranges to the hooks of every device (replicated
// tables), results appended to `out`.
template <DeviceTeam Team, class... Makes>
void match_on_team(Team& team, MatchHooks<Makes...>& hooks, const MatchTables& tables,
                   const PreparedEvents& events, bool want_filters, MatchScratch& scratch,
                   MatchResults& out) {
  std::vector<std::uint32_t> all(tables.shard_count());
  for (std::uint32_t s = 0; s < tables.shard_count(); ++s) all[s] = s;
  hooks.sync(team, tables, [&](int) { return std::span<const std::uint32_t>(all); });
  const MatchBatch batch = make_batch(tables, events, want_filters, scratch, team.workers());
  const std::vector<TeamVariant> variants = hooks.variants(batch, scratch.hits);
  team.run_variants(events.size(), std::span<const TeamVariant>(variants), std::string_view("match"),
                    Grain::range);
  append_results(tables, events.ids(), batch.bitmaps, batch.words, scratch.hits, want_filters, out);
}

// One batch with the filters partitioned over the team's GPU workers: GPU worker k (k-th GPU of
// the team) holds shard k (tables.shard_count() == GPU workers) and matches the whole batch
// against it; the bitmaps are ORed by the hooks. Throws Error when a GPU fails: no other device
// holds its shard.
template <DeviceTeam Team, class... Makes>
void match_partitioned(Team& team, MatchHooks<Makes...>& hooks, const MatchTables& tables,
                       const PreparedEvents& events, bool want_filters, MatchScratch& scratch,
                       MatchResults& out, const std::function<int(int)>& shard_of_worker) {
  std::vector<std::uint32_t> own(static_cast<std::size_t>(team.workers()));
  for (int w = 0; w < team.workers(); ++w)
    own[static_cast<std::size_t>(w)] = static_cast<std::uint32_t>(std::max(0, shard_of_worker(w)));
  hooks.sync(team, tables, [&](int worker) {
    return std::span<const std::uint32_t>(&own[static_cast<std::size_t>(worker)], 1);
  });
  const MatchBatch batch = make_batch(tables, events, want_filters, scratch, team.workers());
  team.for_each_worker([&](int worker) {
    if (shard_of_worker(worker) < 0) return;
    const bool ran = hooks.with_hook(worker, team.kind(worker), [&](auto& hook) {
      hook.match(batch, 0, events.size(), scratch.hits[static_cast<std::size_t>(worker)]);
    });
    if (!ran)
      throw Error(ErrorKind::resource, "matching: the device holding shard " +
                                           std::to_string(shard_of_worker(worker)) + " failed");
  });
  append_results(tables, events.ids(), batch.bitmaps, batch.words, scratch.hits, want_filters, out);
}

// One batch on the calling thread with one hook (latency mode: no team, no hand-off).
template <MatchHook Hook>
void match_inline(Hook& hook, const MatchTables& tables, const PreparedEvents& events, bool want_filters,
                  MatchScratch& scratch, MatchResults& out) {
  const MatchBatch batch = make_batch(tables, events, want_filters, scratch, 1);
  hook.match(batch, 0, events.size(), scratch.hits[0]);
  append_results(tables, events.ids(), batch.bitmaps, batch.words, scratch.hits, want_filters, out);
}

}  // namespace sextant::matching
