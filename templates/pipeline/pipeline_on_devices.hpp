// The pipeline template: the source range is cut into chunks that a DeviceTeam hands to every
// worker (large chunks for GPUs, small ones for cores, adapted to what each shows); each worker runs
// a replica hook of its kind on its chunks (a core's CPU replica, a GPU's set of block replicas), and
// the chunks' sink items are put together in chunk order, so items arrive in input order wherever the
// replicas keep order inside a chunk. A chunk's items are published when it finishes, so the team may
// re-run a chunk on another device after a failure.
//
// The hooks come as offers (a name, a device kind, whether this machine can run it, and a factory
// worker -> hook); the team measures the offers a worker can run and keeps the fastest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "core/task_team.hpp"
#include "core/worker_hooks.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline {

template <class Out>
class ChunkRunner {
 public:
  virtual ~ChunkRunner() = default;
  virtual void run(std::uint64_t begin, std::uint64_t end, ChunkOutput<Out>& out) = 0;
};

template <ReplicaHook R>
class RunnerOf final : public ChunkRunner<typename R::Output> {
 public:
  template <class... Args>
  explicit RunnerOf(Args&&... args) : hook_(std::forward<Args>(args)...) {}
  void run(std::uint64_t begin, std::uint64_t end, ChunkOutput<typename R::Output>& out) override {
    hook_.run(begin, end, out);
  }
  R& hook() noexcept { return hook_; }

 private:
  R hook_;
};

// A hook offered for some workers, its type erased (pipelines offer a list built at run time: one
// CPU replica per lane width, the GPU's): what core/worker_hooks.hpp's Offer holds, plus what the
// hook type would say (name, kind, fallback).
template <class Out>
struct ReplicaOffer {
  using Make = std::function<std::unique_ptr<ChunkRunner<Out>>(int worker)>;  // once per worker
  std::string name;
  DeviceKind kind = DeviceKind::cpu;
  bool runnable = true;
  bool fallback = false;
  Make make;
};

// An offer of hook type R, made per worker by make(worker) -> R.
template <ReplicaHook R, class Make>
ReplicaOffer<typename R::Output> offer(Make make, bool runnable = true) {
  ReplicaOffer<typename R::Output> o;
  o.name = std::string(R::name);
  o.kind = R::device_kind;
  o.runnable = runnable;
  o.make = [make = std::move(make)](int worker) -> std::unique_ptr<ChunkRunner<typename R::Output>> {
    return std::make_unique<RunnerOf<R>>(make(worker));
  };
  return o;
}

template <class Out>
struct PipelineRun {
  std::vector<Out> items;  // chunk after chunk
  std::uint64_t count = 0;
  RunCounters counters;
};

// Runs sources [0, sources) on every worker of `team` with the offered hooks. `name` keys the rates
// the team remembers (one per pipeline).
template <class Out, DeviceTeam Team>
PipelineRun<Out> run_on_team(Team& team, std::uint64_t sources, std::span<const ReplicaOffer<Out>> offers,
                             std::string_view name) {
  // One runner per (offer, worker), made on first use. GPU replicas upload parameters and allocate
  // their buffers before the range starts, all GPUs at once; a failure is kept for the worker's
  // first chunk, where the team handles it.
  std::vector<WorkerHooks<typename ReplicaOffer<Out>::Make>> runners;
  runners.reserve(offers.size());
  for (const ReplicaOffer<Out>& o : offers) runners.emplace_back(o.make, team.workers());
  team.for_each_worker([&](int worker) {
    for (std::size_t o = 0; o < offers.size(); ++o)
      if (offers[o].runnable && offers[o].kind == DeviceKind::gpu && team.kind(worker) == DeviceKind::gpu)
        runners[o].prepare(worker, [](auto&) {});
  });
  std::mutex mutex;
  std::vector<std::pair<std::uint64_t, ChunkOutput<Out>>> chunks;
  std::vector<TeamVariant> variants;
  for (std::size_t o = 0; o < offers.size(); ++o) {
    TeamVariant v;
    v.name = offers[o].name;
    v.kind = offers[o].kind;
    v.runnable = offers[o].runnable;
    v.fallback = offers[o].fallback;
    v.fn = [&, o](std::size_t begin, std::size_t end, int worker) {
      ChunkOutput<Out> out;
      runners[o].at(worker)->run(begin, end, out);
      std::lock_guard lock(mutex);
      chunks.emplace_back(begin, std::move(out));
    };
    variants.push_back(std::move(v));
  }
  team.run_variants(sources, std::span<const TeamVariant>(variants), name, Grain::range);
  std::sort(chunks.begin(), chunks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  PipelineRun<Out> run;
  std::size_t items = 0;
  for (const auto& c : chunks) items += c.second.items.size();
  run.items.reserve(items);
  for (auto& c : chunks) {
    run.items.insert(run.items.end(), std::make_move_iterator(c.second.items.begin()),
                     std::make_move_iterator(c.second.items.end()));
    std::vector<Out>().swap(c.second.items);
    run.count += c.second.count;
    run.counters.add(c.second.counters);
  }
  return run;
}

}  // namespace sextant::pipeline
