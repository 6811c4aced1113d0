// The GPU replicas of the test pipelines (test_pipelines.hpp), for replica_gpu_test.cpp.
#include "gpu/pipeline/replica_gpu.cuh"
#include "pipeline/test_pipelines.hpp"

template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::testing::FanPipeline>;
template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::testing::LiarPipeline>;
template class sextant::pipeline::gpu::PipelineGpu<sextant::pipeline::testing::UnevenPipeline>;
