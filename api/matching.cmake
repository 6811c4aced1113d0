# Content-based matching (paper 002): the Matcher front door. The engine is made by the backends
# (cpu/matching/matching_backend_cpu.cpp or gpu/matching/matching_backend_gpu.cpp).
target_sources(sextant_api PRIVATE matcher.cpp)
