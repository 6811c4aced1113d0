// A pipeline on the scheduler's workers: the CPU replicas of cpu/pipeline (one per core, the width
// the request or the cores choose) plus the replicas another backend offers for its devices (the
// GPU backend's, gpu/pipeline/pipeline_backend_gpu.cpp; NoMoreReplicas in a CPU-only build), through
// the family's template (templates/pipeline/pipeline_on_devices.hpp). Each device kind plans its own
// queue sizes for its vector width.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "cpu/pipeline/pipeline_cpu.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "templates/pipeline/pipeline_on_devices.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/run_request.hpp"

namespace sextant::pipeline {

// No devices beyond the CPU's.
struct NoMoreReplicas {
  template <PipelineType P>
  std::vector<ReplicaOffer<typename P::Output>> offers(scheduler::SchedulerTeam&, const Instance<P>&,
                                                       const RunRequest&, const PipelineShape&,
                                                       RunOutcome<typename P::Output>&) const {
    return {};
  }
};

namespace detail {

// The offer of the registered CPU variant (cpu/pipeline/pipeline_cpu.hpp) of `lanes` lanes.
template <PipelineType P, bool Profile>
ReplicaOffer<typename P::Output> cpu_offer(std::uint32_t lanes, const Instance<P>& instance,
                                           const ReplicaOptions& options) {
  std::optional<ReplicaOffer<typename P::Output>> out;
  [&]<class... Hooks>(std::tuple<Hooks...>*) {
    (..., (Hooks::lanes == lanes && !out
               ? (void)(out = offer<Hooks>([&instance, options](int) { return Hooks(instance, options); },
                                           Hooks::can_run()))
               : void()));
  }(static_cast<cpu::PipelineCpuVariants<P, Profile>*>(nullptr));
  if (!out) throw Error::internal("no CPU pipeline variant of " + std::to_string(lanes) + " lanes");
  return std::move(*out);
}

inline scheduler::ThroughputModelPolicy range_policy() {
  scheduler::ThroughputModelPolicy p;
  p.min_cpu_chunk = policy::min_cpu_chunk;
  p.min_gpu_chunk = policy::min_gpu_chunk;
  p.min_chunk_seconds = policy::min_chunk_seconds;
  p.shared_pool = policy::shared_pool;
  return p;
}

}  // namespace detail

// Runs `instance` on every worker of `s`. `name` keys the rates the scheduler remembers.
template <PipelineType P, class More>
RunOutcome<typename P::Output> pipeline_on_scheduler(const Instance<P>& instance, const RunRequest& request,
                                                     scheduler::Scheduler& s, const More& more,
                                                     std::string_view name) {
  using Out = typename P::Output;
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers, scheduler::FailureMode::propagate);
  team.range_policy = detail::range_policy();
  const PipelineShape shape = shape_of<P>(instance.params);
  RunOutcome<Out> outcome;
  std::vector<ReplicaOffer<Out>> offers;
  if (s.worker_count(DeviceKind::cpu) > 0) {
    const std::uint32_t lanes = resolve_cpu_lanes(request.cpu_lanes);
    DeviceLayout d = plan_layout(shape, request, lanes);
    ReplicaOptions options;
    options.layout = d.layout;
    options.collect = request.collect;
    options.profile = request.profile;
    options.ordered = request.ordered;
    offers.push_back(request.profile ? detail::cpu_offer<P, true>(lanes, instance, options)
                                     : detail::cpu_offer<P, false>(lanes, instance, options));
    outcome.sizes.emplace_back("cpu " + std::to_string(lanes) + " lanes", std::move(d.sizes));
  }
  if (s.worker_count(DeviceKind::gpu) > 0)
    for (auto& o : more.template offers<P>(team, instance, request, shape, outcome))
      offers.push_back(std::move(o));
  PipelineRun<Out> run = run_on_team<Out>(team, instance.sources.count, offers, name);
  outcome.items = std::move(run.items);
  outcome.count = run.count;
  outcome.counters = std::move(run.counters);
  if (outcome.counters.nodes.size() < P::size) outcome.counters.nodes.resize(P::size);
  return outcome;
}

}  // namespace sextant::pipeline
