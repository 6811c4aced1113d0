# Pipelines (paper 003) on GPUs: the persistent kernel (replica_gpu.cuh) instantiated per application,
# one translation unit each so that they compile in parallel, and the backends with CPU and GPU
# replicas. Included from gpu/CMakeLists.txt when CUDA is on.
target_sources(sextant_gpu PRIVATE pipeline/pipeline_backends_gpu.cpp pipeline/blast_gpu.cu pipeline/nqueens_gpu.cu
                                   pipeline/taxi_gpu.cu pipeline/synthetic_gpu.cu)
