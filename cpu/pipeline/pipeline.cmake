# Pipelines (paper 003) on CPU cores: the replica and its variants are headers; a build without CUDA
# instantiates the applications' backends here (with CUDA, gpu/pipeline does it with the GPU's).
if(NOT SEXTANT_HAS_CUDA)
  target_sources(sextant_cpu PRIVATE pipeline/pipeline_backends_cpu.cpp)
endif()
