// The pipeline backends of a build with CUDA (api/backends.hpp): the CPU replicas of cpu/pipeline
// plus, on every GPU worker, the GPU's block replicas (gpu/pipeline/pipeline_gpu.hpp, instantiated
// per application in gpu/pipeline/<app>_gpu.cu). The GPUs plan their queues for their own vector
// width (policy::gpu_lanes).
#include <string>
#include <utility>
#include <vector>

#include "api/backends.hpp"
#include "apps/pipelines/app_list.hpp"
#include "cpu/pipeline/pipeline_on_scheduler.hpp"
#include "gpu/pipeline/pipeline_gpu.hpp"

namespace sextant::backends {

namespace {

struct GpuReplicas {
  template <pipeline::PipelineType P>
  std::vector<pipeline::ReplicaOffer<typename P::Output>> offers(
      scheduler::SchedulerTeam& team, const pipeline::Instance<P>& instance,
      const pipeline::RunRequest& request, const pipeline::PipelineShape& shape,
      pipeline::RunOutcome<typename P::Output>& outcome) const {
    pipeline::DeviceLayout d = pipeline::plan_layout(shape, request, pipeline::policy::gpu_lanes);
    pipeline::ReplicaOptions options;
    options.layout = d.layout;
    options.collect = request.collect;
    options.profile = request.profile;
    options.ordered = request.ordered;
    outcome.sizes.emplace_back("gpu " + std::to_string(pipeline::policy::gpu_lanes) + " lanes",
                               std::move(d.sizes));
    std::vector<pipeline::ReplicaOffer<typename P::Output>> out;
    out.push_back(pipeline::offer<pipeline::gpu::PipelineGpu<P>>([&team, &instance, options](int worker) {
      return pipeline::gpu::PipelineGpu<P>(team.gpu_ordinal(worker), instance, options);
    }));
    return out;
  }
};

}  // namespace

template <class P>
pipeline::RunOutcome<typename P::Output> pipeline_on_scheduler(const pipeline::Instance<P>& instance,
                                                               const pipeline::RunRequest& request,
                                                               scheduler::Scheduler& s) {
  return pipeline::pipeline_on_scheduler<P>(instance, request, s, GpuReplicas{},
                                            pipeline::pipeline_app_name<P>);
}

#define SEXTANT_PIPELINE_BACKEND(P)                                  \
  template pipeline::RunOutcome<P::Output> pipeline_on_scheduler<P>( \
      const pipeline::Instance<P>&, const pipeline::RunRequest&, scheduler::Scheduler&);
SEXTANT_FOR_EACH_PIPELINE_APP(SEXTANT_PIPELINE_BACKEND)
#undef SEXTANT_PIPELINE_BACKEND

}  // namespace sextant::backends
