// The pipeline backends of a build without CUDA (api/backends.hpp): CPU replicas only; a GPU in
// the run is refused earlier, where the devices are planned (api/pipeline.cpp).
#include "api/backends.hpp"
#include "apps/pipelines/app_list.hpp"
#include "cpu/pipeline/pipeline_on_scheduler.hpp"

namespace sextant::backends {

template <class P>
pipeline::RunOutcome<typename P::Output> pipeline_on_scheduler(const pipeline::Instance<P>& instance,
                                                               const pipeline::RunRequest& request,
                                                               scheduler::Scheduler& s) {
  return pipeline::pipeline_on_scheduler<P>(instance, request, s, pipeline::NoMoreReplicas{},
                                            pipeline::pipeline_app_name<P>);
}

#define SEXTANT_PIPELINE_BACKEND(P)                                  \
  template pipeline::RunOutcome<P::Output> pipeline_on_scheduler<P>( \
      const pipeline::Instance<P>&, const pipeline::RunRequest&, scheduler::Scheduler&);
SEXTANT_FOR_EACH_PIPELINE_APP(SEXTANT_PIPELINE_BACKEND)
#undef SEXTANT_PIPELINE_BACKEND

}  // namespace sextant::backends
