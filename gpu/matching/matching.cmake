# The CCM hook (paper 002, redesigned) and the Matcher's engine with GPUs. Paths relative to gpu/.
target_sources(sextant_gpu PRIVATE matching/match_gpu.cu matching/matching_backend_gpu.cpp)
