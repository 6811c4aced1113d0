// The Matcher's engine on the heterogeneous scheduler: a worker per selected core and per GPU, the
// CPU backend's hook variants (cpu/matching/matching_variants.hpp) on every core and the hooks
// another backend offers for its devices (`GpuHooks`: the GPU backend's, see
// gpu/matching/matching_backend_gpu.cpp; NoGpuHooks in a CPU-only build). Batches go through the
// template (templates/matching/match_template.hpp): event ranges over every device, or every GPU
// on its own shard when the filters are partitioned. Single events run on the calling thread.
#pragma once

#include <algorithm>
#include <memory>
#include <memory_resource>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/matcher_engine.hpp"
#include "core/error.hpp"
#include "cpu/matching/matching_variants.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "templates/matching/match_template.hpp"
#include "templates/matching/matching_policy.hpp"

namespace sextant::matching {

// No devices beyond the CPU's. A GpuHooks may also offer event_memory(): where the prepared events
// its devices copy should live.
struct NoGpuHooks {
  static constexpr bool copies_tables = false;
  std::tuple<> operator()(const scheduler::SchedulerTeam&) const { return {}; }
};

namespace detail {

template <class T>
struct HooksFor;
template <class... Makes>
struct HooksFor<std::tuple<Offer<Makes>...>> {
  using type = MatchHooks<Makes...>;
};

// Calls f(hook) with a fresh hook of the first type of `Variants` this machine can run.
template <class Variants, class F>
bool with_first_runnable(F&& f) {
  return [&]<class... Hooks>(std::tuple<Hooks...>*) {
    bool done = false;
    const auto one = [&]<class Hook>(Hook*) {
      if (done || !Hook::can_run()) return;
      Hook hook{};
      f(hook);
      done = true;
    };
    (one(static_cast<Hooks*>(nullptr)), ...);
    return done;
  }(static_cast<Variants*>(nullptr));
}

inline DeviceSelection gpus_only(const DeviceSelection& devices, const scheduler::Topology& machine) {
  DeviceSelection out;
  if (devices.all) {
    for (int g = 0; g < machine.gpu_count(); ++g) out.devices.push_back({DeviceKind::gpu, g});
  } else {
    for (const DeviceId& d : devices.devices)
      if (d.kind == DeviceKind::gpu) out.devices.push_back(d);
  }
  return out;
}

inline bool names_gpu(const DeviceSelection& devices) {
  return std::any_of(devices.devices.begin(), devices.devices.end(),
                     [](const DeviceId& d) { return d.kind == DeviceKind::gpu; });
}

}  // namespace detail

template <class GpuHooks>
class SchedulerMatchEngine final : public detail::MatchEngine {
  static auto offers(const scheduler::SchedulerTeam& team, const GpuHooks& gpu) {
    return std::tuple_cat(offers_of<MatchCpuVariants>(), gpu(team));
  }
  using Hooks = typename detail::HooksFor<decltype(offers(std::declval<const scheduler::SchedulerTeam&>(),
                                                          std::declval<const GpuHooks&>()))>::type;

 public:
  SchedulerMatchEngine(const scheduler::Topology& machine, const MatcherOptions& options, GpuHooks gpu)
      : partitioned_(options.placement == Placement::partition),
        scheduler_(machine, scheduler_options(machine, options, partitioned_)),
        team_(scheduler_, scheduler::TeamMode::all_workers, scheduler::FailureMode::retry_elsewhere),
        gpu_(std::move(gpu)) {
    team_.range_policy.min_cpu_chunk = policy::Batches::min_cpu_chunk;
    team_.range_policy.min_gpu_chunk = policy::Batches::min_gpu_chunk;
    team_.range_policy.shared_pool = policy::Batches::shared_pool;
    for (int w = 0; w < team_.workers(); ++w) {
      if (team_.kind(w) == DeviceKind::gpu)
        gpu_workers_.push_back(w);
      else
        ++cpu_workers_;
    }
    if (partitioned_ && gpu_workers_.empty())
      throw Error::argument("placement", "partition", "replicate, or partition with GPUs selected",
                            "partitioning the filters needs at least one GPU");
    hooks_ = std::apply([&](auto... o) { return std::make_unique<Hooks>(team_.workers(), std::move(o)...); },
                        offers(team_, gpu_));
  }

  std::uint32_t shards() const override {
    return partitioned_ ? static_cast<std::uint32_t>(gpu_workers_.size()) : 1u;
  }
  bool copies_tables() const override { return GpuHooks::copies_tables && !gpu_workers_.empty(); }
  bool matches_on_gpus() const override { return !gpu_workers_.empty(); }
  std::pmr::memory_resource* event_memory() const override {
    if constexpr (requires { gpu_.event_memory(); })
      if (!gpu_workers_.empty()) return gpu_.event_memory();
    return std::pmr::get_default_resource();
  }

  void match(MatchTables& tables, const PreparedEvents& events, bool with_filters,
             MatchResults& out) override {
    if (partitioned_) {
      match_partitioned(team_, *hooks_, tables, events, with_filters, scratch_, out, [this](int worker) {
        const auto at = std::find(gpu_workers_.begin(), gpu_workers_.end(), worker);
        return at == gpu_workers_.end() ? -1 : static_cast<int>(at - gpu_workers_.begin());
      });
    } else {
      match_on_team(team_, *hooks_, tables, events, with_filters, scratch_, out);
    }
    // Every device copy applied the logged changes (a device that failed to is out for good).
    for (std::uint32_t s = 0; s < tables.shard_count(); ++s) tables.shard(s).trim_changes();
  }

  void match_here(MatchTables& tables, const PreparedEvents& events, bool with_filters,
                  MatchResults& out) override {
    if (cpu_workers_ > 0) {
      detail::with_first_runnable<MatchCpuVariants>(
          [&](auto& hook) { match_inline(hook, tables, events, with_filters, scratch_, out); });
      return;
    }
    if (!partitioned_ && !gpu_workers_.empty()) {  // only GPUs: the first one, on this thread
      std::vector<std::uint32_t> all(tables.shard_count());
      for (std::uint32_t s = 0; s < tables.shard_count(); ++s) all[s] = s;
      hooks_->sync(team_, tables, [&](int) { return std::span<const std::uint32_t>(all); });
      for (std::uint32_t s = 0; s < tables.shard_count(); ++s) tables.shard(s).trim_changes();
      for (const int w : gpu_workers_)
        if (hooks_->with_hook(w, DeviceKind::gpu, [&](auto& hook) {
              match_inline(hook, tables, events, with_filters, scratch_, out);
            }))
          return;
    }
    match(tables, events, with_filters, out);  // through the team (a GPU that failed is retired there)
  }

  std::string describe() const override {
    std::string out = "cpu: " + std::to_string(cpu_workers_) + " workers (";
    bool first = true;
    [&]<class... H>(std::tuple<H...>*) {
      (...,
       (H::can_run() ? (void)(out += (first ? "" : ", ") + std::string(H::name), first = false) : void()));
    }(static_cast<MatchCpuVariants*>(nullptr));
    out += ")";
    for (const int w : gpu_workers_) out += "; gpu" + std::to_string(team_.gpu_ordinal(w));
    if (!gpu_workers_.empty())
      out += partitioned_ ? "; filters partitioned over the GPUs" : "; filters on every GPU";
    return out;
  }

  scheduler::Statistics statistics() const override { return scheduler_.statistics(); }

 private:
  static scheduler::SchedulerOptions scheduler_options(const scheduler::Topology& machine,
                                                       const MatcherOptions& options, bool partitioned) {
    if (detail::names_gpu(options.devices) && machine.gpu_count() == 0)
      throw Error::unsupported(
          "cannot match on a GPU: no GPU found on this machine; name CPU devices (all, cpu or numaN)");
    if (options.threads < 0)
      throw Error::argument("threads", std::to_string(options.threads), ">= 0 (0 = every selected core)");
    scheduler::SchedulerOptions o;
    o.layout.devices = partitioned ? detail::gpus_only(options.devices, machine) : options.devices;
    o.layout.cpu_cores = options.threads;
    o.layout.gpu_own_core = true;
    return o;
  }

  bool partitioned_;
  scheduler::Scheduler scheduler_;
  scheduler::SchedulerTeam team_;
  GpuHooks gpu_;
  std::unique_ptr<Hooks> hooks_;
  std::vector<int> gpu_workers_;
  int cpu_workers_ = 0;
  MatchScratch scratch_;
};

}  // namespace sextant::matching
