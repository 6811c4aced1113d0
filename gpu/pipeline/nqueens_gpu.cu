// The GPU replicas of the nqueens pipeline (apps/pipelines/nqueens.hpp).
#include "apps/pipelines/nqueens.hpp"
#include "gpu/pipeline/replica_gpu.cuh"

template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::apps::nqueens::NQueensPipeline>;
