// The pipeline family's front door (paper 003; docs/pipeline.md): run, profile and plan a pipeline
// on any mix of CPU cores and GPUs. It chooses (devices, merge plan, gains for the sizing rule) and
// hands the run to the build's backends (api/backends.hpp), which instantiate the replicas for the
// applications of apps/pipelines; these functions exist for those pipelines.
//
//   auto problem = apps::nqueens::make_problem(12);
//   PipelineOptions o;
//   o.ordered = true;                 // solutions in lexicographic order
//   o.merge = "auto";                 // the merge model's best plan for the measured gains
//   o.devices = parse_devices("--devices", "all");
//   auto result = run_pipeline(apps::nqueens::make_instance(problem), o);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "scheduler/statistics.hpp"
#include "scheduler/topology.hpp"
#include "templates/pipeline/merge_model.hpp"
#include "templates/pipeline/merge_plan.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/profile.hpp"
#include "templates/pipeline/run_request.hpp"
#include "templates/pipeline/run_spec.hpp"
#include "templates/pipeline/sizing.hpp"

namespace sextant::pipeline {

struct PipelineOptions {
  SizingRule sizing = SizingRule::sqrt;
  std::size_t queue_budget = 0;  // bytes per replica; 0 = the rule's default (sizing.hpp)
  std::string merge = "none";    // "none", "auto" (the merge model's cheapest plan that fits) or "1+2,3"
  bool ordered = false;          // the sink's items in input order (source index, then emission order)
  bool collect = true;           // keep the sink's items (false: count them)
  DeviceSelection devices;       // all | cpu | numaN,... | gpuN,...; empty = cpu
  int threads = 0;               // CPU cores at most (0 = every core of the selection)
  std::uint32_t cpu_lanes = 0;   // 8 or 16; 0 = the widest the cores run
  // Gains for the sqrt rule and the model for merge "auto". Without one, a prefix of the input
  // (policy::profile_sample_sources) is profiled on a core first.
  std::optional<PipelineProfile> profile;
  std::optional<scheduler::Topology> machine;  // default: this machine; tests: a synthetic one
};

template <class Out>
struct PipelineResult {
  std::vector<Out> items;  // in input order when asked for (always from CPU replicas)
  std::uint64_t count = 0;
  RunCounters counters;                                   // node switches and vectors fired, every replica
  MergePlan plan;                                         // the plan that ran
  std::vector<std::pair<std::string, QueueSizes>> sizes;  // per device kind
  std::optional<PipelineProfile> sample;                  // the sample profiled for the plan, if any
  std::string devices;                                    // "cpu: 2 workers, gpu0" and the like
  double seconds = 0;                                     // the run, after planning
  std::shared_ptr<const scheduler::Statistics> statistics;
};

struct PipelinePlan {
  PipelineProfile profile;          // measured unmerged on the run's first device kind
  std::vector<QueueSizes> sizes;    // equal, mercator, sqrt at the budget, for the profile's width
  std::vector<RankedPlan> ranking;  // every merge strategy, cheapest first
};

// Throws Error: bad_input for an empty source; bad_argument for a bad merge plan or a budget below
// the minimum safe sizes (naming the queues); unsupported for a GPU this build or machine lacks;
// bad_input naming the node when a node breaks its gain limit.
template <PipelineType P>
PipelineResult<typename P::Output> run_pipeline(const Instance<P>& instance, const PipelineOptions& options);

// Runs unmerged with instrumentation on the first device kind of options.devices: every CPU core
// named (times in ns) or the first GPU named (times in cycles).
template <PipelineType P>
PipelineProfile profile_pipeline(const Instance<P>& instance, const PipelineOptions& options);

// The profile (options.profile, or measured as above), the queue sizes of every rule at the budget
// and the ranked merge strategies.
template <PipelineType P>
PipelinePlan plan_pipeline(const Instance<P>& instance, const PipelineOptions& options);

}  // namespace sextant::pipeline
