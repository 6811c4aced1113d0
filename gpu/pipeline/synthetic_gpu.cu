// The GPU replicas of the synthetic pipeline (apps/pipelines/synthetic.hpp).
#include "apps/pipelines/synthetic.hpp"
#include "gpu/pipeline/replica_gpu.cuh"

template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::apps::synthetic::SyntheticPipeline>;
