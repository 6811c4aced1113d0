// The GPU replicas of the taxi pipeline (apps/pipelines/taxi.hpp).
#include "apps/pipelines/taxi.hpp"
#include "gpu/pipeline/replica_gpu.cuh"

template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::apps::taxi::TaxiPipeline>;
