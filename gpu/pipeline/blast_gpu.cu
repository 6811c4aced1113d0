// The GPU replicas of the blast pipeline (apps/pipelines/blast.hpp).
#include "apps/pipelines/blast.hpp"
#include "gpu/pipeline/replica_gpu.cuh"

template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::apps::blast::BlastPipeline>;
