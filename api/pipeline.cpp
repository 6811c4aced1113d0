#include "api/pipeline.hpp"

#include <algorithm>
#include <string>

#include "api/backends.hpp"
#include "api/machine.hpp"
#include "apps/pipelines/app_list.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "scheduler/scheduler.hpp"
#include "templates/pipeline/pipeline_policy.hpp"

namespace sextant::pipeline {

namespace {

struct Devices {
  scheduler::Topology machine;
  DeviceSelection selection;
  bool gpus = false;  // some GPU of the machine is selected
};

Devices plan_devices(const PipelineOptions& o) {
  Devices d;
  d.machine = o.machine ? *o.machine : api::machine_for(o.devices);
  d.selection = o.devices;
  if (!d.selection.all && d.selection.devices.empty())
    d.selection.devices.push_back(DeviceId{DeviceKind::cpu, -1});
  if (d.machine.gpu_count() == 0 && d.selection.names_gpu()) {
    const auto gpu = std::find_if(d.selection.devices.begin(), d.selection.devices.end(),
                                  [](const DeviceId& id) { return id.kind == DeviceKind::gpu; });
    const std::string why = !build::has_cuda && !o.machine ? "this build of Sextant has no CUDA support"
                                                           : "no GPU found on this machine";
    throw Error::unsupported("cannot run on GPU " + to_string(*gpu) + ": " + why +
                             "; name CPU devices instead (all, cpu or numaN)");
  }
  d.gpus = d.machine.gpu_count() > 0 && d.selection.wants_gpu();
  return d;
}

// One kind of device for a profile: the first GPU named (or gpu0 for "all"), else the CPUs named.
Devices profile_devices(const PipelineOptions& o) {
  Devices d = plan_devices(o);
  if (d.gpus) {
    DeviceId first{DeviceKind::gpu, 0};
    for (const DeviceId& id : d.selection.devices)
      if (id.kind == DeviceKind::gpu) {
        first = id;
        break;
      }
    d.selection = DeviceSelection{false, {first}};
  } else if (d.selection.all) {
    d.selection = DeviceSelection{false, {DeviceId{DeviceKind::cpu, -1}}};
  }
  return d;
}

scheduler::SchedulerOptions scheduler_options(const Devices& d, int threads) {
  if (threads < 0) throw Error::argument("--threads", std::to_string(threads), ">= 0 (0 = every core)");
  scheduler::SchedulerOptions s;
  s.layout.devices = d.selection;
  s.layout.cpu_cores = threads;
  s.layout.gpu_own_core = true;
  return s;
}

std::string describe(const scheduler::Scheduler& s) {
  std::string out;
  const int cores = s.worker_count(DeviceKind::cpu);
  if (cores > 0) out = "cpu: " + std::to_string(cores) + (cores == 1 ? " core" : " cores");
  for (const scheduler::WorkerInfo& w : s.workers())
    if (w.kind == DeviceKind::gpu) out += (out.empty() ? "" : ", ") + to_string(w.device);
  return out;
}

template <PipelineType P>
void check_instance(const Instance<P>& instance) {
  if (instance.sources.count == 0)
    throw Error(ErrorKind::bad_input, "the pipeline's input stream is empty: there is nothing to run");
}

// The first GPU of a selection that has one (gpu0 for "all").
DeviceId first_gpu(const Devices& d) {
  for (const DeviceId& id : d.selection.devices)
    if (id.kind == DeviceKind::gpu) return id;
  return DeviceId{DeviceKind::gpu, 0};
}

// Gains and times measured on a prefix of the input, unmerged: on the run's first GPU when it has
// GPUs (their plan is the one that matters: lock-step lanes, their own times), else on one core.
template <PipelineType P>
PipelineProfile sample_profile(const Instance<P>& instance, const PipelineOptions& o, const Devices& run) {
  Instance<P> sample = instance;
  sample.sources.count = std::min<std::uint64_t>(instance.sources.count, policy::profile_sample_sources);
  Devices d;
  d.machine = run.machine;
  d.gpus = run.gpus;
  d.selection = DeviceSelection{false, {run.gpus ? first_gpu(run) : DeviceId{DeviceKind::cpu, -1}}};
  scheduler::Scheduler s(d.machine, scheduler_options(d, 1));
  const PipelineShape shape = shape_of<P>(instance.params);
  RunRequest r;
  r.merge = MergePlan::unmerged(P::size);
  r.sizing = SizingRule::equal;
  r.cpu_lanes = o.cpu_lanes;
  r.collect = false;
  r.profile = true;
  const std::uint32_t lanes = run.gpus ? policy::gpu_lanes : resolve_cpu_lanes(o.cpu_lanes);
  std::uint64_t least = 0;
  for (const QueueSpec& q : queue_specs(shape, r.merge, lanes, {})) least += q.min_items * q.item_bytes;
  r.queue_budget =
      std::max<std::uint64_t>(least, o.queue_budget > 0 ? o.queue_budget : policy::default_queue_budget);
  Stopwatch sw;
  const RunOutcome<typename P::Output> outcome = backends::pipeline_on_scheduler<P>(sample, r, s);
  PipelineProfile p = derive_profile(shape, outcome.counters, lanes, run.gpus ? "cycles" : "ns");
  p.lockstep = run.gpus;
  p.device = describe(s) + " (a sample)";
  p.sources = sample.sources.count;
  p.seconds = sw.seconds();
  return p;
}

template <PipelineType P>
void check_profile(const PipelineProfile& p) {
  if (p.nodes.size() != P::size)
    throw Error::argument("profile", std::to_string(p.nodes.size()) + " nodes",
                          "a profile of this pipeline (" + std::to_string(P::size) + " nodes)");
}

struct Prepared {
  Devices devices;
  RunRequest request;
  std::optional<PipelineProfile> sample;
};

template <PipelineType P>
Prepared prepare(const Instance<P>& instance, const PipelineOptions& o, bool profiling) {
  check_instance(instance);
  Prepared p;
  p.devices = profiling ? profile_devices(o) : plan_devices(o);
  const PipelineShape shape = shape_of<P>(instance.params);
  const bool automatic = !profiling && o.merge == "auto";
  MergePlan plan = MergePlan::unmerged(P::size);
  if (!profiling && !automatic) plan = MergePlan::parse(o.merge, P::size);  // bad plans fail before any work
  if (o.profile) check_profile<P>(*o.profile);
  if ((o.sizing == SizingRule::sqrt || automatic) && !o.profile)
    p.sample = sample_profile(instance, o, p.devices);
  const std::optional<PipelineProfile>& gains = o.profile ? o.profile : p.sample;
  if (automatic) {
    const std::uint32_t width = p.devices.gpus ? policy::gpu_lanes : resolve_cpu_lanes(o.cpu_lanes);
    const std::uint64_t budget = o.queue_budget > 0 ? o.queue_budget : policy::default_queue_budget;
    const std::vector<RankedPlan> ranking =
        rank_plans(node_models(*gains), shape, width, budget, gains->lockstep);
    plan = ranking.front().plan;  // fitting plans rank first; an unfitting one fails with the queues it needs
  }
  p.request.merge = plan;
  p.request.sizing = o.sizing;
  p.request.queue_budget = o.queue_budget;
  if (gains && o.sizing == SizingRule::sqrt) p.request.gains = gains->gains();
  p.request.cpu_lanes = o.cpu_lanes;
  p.request.ordered = o.ordered;
  p.request.collect = profiling ? false : o.collect;
  p.request.profile = profiling;
  return p;
}

}  // namespace

template <PipelineType P>
PipelineResult<typename P::Output> run_pipeline(const Instance<P>& instance, const PipelineOptions& options) {
  Prepared p = prepare(instance, options, false);
  scheduler::Scheduler s(p.devices.machine, scheduler_options(p.devices, options.threads));
  Stopwatch sw;
  RunOutcome<typename P::Output> outcome = backends::pipeline_on_scheduler<P>(instance, p.request, s);
  PipelineResult<typename P::Output> r;
  r.seconds = sw.seconds();
  r.items = std::move(outcome.items);
  r.count = outcome.count;
  r.counters = std::move(outcome.counters);
  r.plan = p.request.merge;
  r.sizes = std::move(outcome.sizes);
  r.sample = std::move(p.sample);
  r.devices = describe(s);
  r.statistics = std::make_shared<const scheduler::Statistics>(s.statistics());
  return r;
}

template <PipelineType P>
PipelineProfile profile_pipeline(const Instance<P>& instance, const PipelineOptions& options) {
  Prepared p = prepare(instance, options, true);
  scheduler::Scheduler s(p.devices.machine, scheduler_options(p.devices, options.threads));
  Stopwatch sw;
  const RunOutcome<typename P::Output> outcome = backends::pipeline_on_scheduler<P>(instance, p.request, s);
  const double seconds = sw.seconds();
  const bool gpu = p.devices.gpus;
  const std::uint32_t width = gpu ? policy::gpu_lanes : resolve_cpu_lanes(options.cpu_lanes);
  PipelineProfile profile =
      derive_profile(shape_of<P>(instance.params), outcome.counters, width, gpu ? "cycles" : "ns");
  profile.lockstep = gpu;  // a GPU's lanes: the merge model takes the maximal vector gains
  profile.device = describe(s);
  profile.sources = instance.sources.count;
  profile.seconds = seconds;
  return profile;
}

template <PipelineType P>
PipelinePlan plan_pipeline(const Instance<P>& instance, const PipelineOptions& options) {
  PipelinePlan plan;
  if (options.profile) {
    check_instance(instance);
    check_profile<P>(*options.profile);
    plan.profile = *options.profile;
  } else {
    plan.profile = profile_pipeline(instance, options);
  }
  const PipelineShape shape = shape_of<P>(instance.params);
  const std::uint32_t width = plan.profile.width;
  const std::vector<double> gains = plan.profile.gains();
  for (const SizingRule rule : {SizingRule::equal, SizingRule::mercator, SizingRule::sqrt})
    plan.sizes.push_back(size_queues(rule, options.queue_budget,
                                     queue_specs(shape, MergePlan::unmerged(P::size), width, gains), width));
  const std::uint64_t budget = options.queue_budget > 0 ? options.queue_budget : policy::default_queue_budget;
  plan.ranking = rank_plans(node_models(plan.profile), shape, width, budget, plan.profile.lockstep);
  return plan;
}

#define SEXTANT_PIPELINE_FRONT_DOOR(P)                                                            \
  template PipelineResult<P::Output> run_pipeline<P>(const Instance<P>&, const PipelineOptions&); \
  template PipelineProfile profile_pipeline<P>(const Instance<P>&, const PipelineOptions&);       \
  template PipelinePlan plan_pipeline<P>(const Instance<P>&, const PipelineOptions&);
SEXTANT_FOR_EACH_PIPELINE_APP(SEXTANT_PIPELINE_FRONT_DOOR)
#undef SEXTANT_PIPELINE_FRONT_DOOR

}  // namespace sextant::pipeline
