# The OCM hook (paper 002): the event loop once, the Bloom scan per instruction set (each a
# variant, registered in matching/matching_variants.hpp). Paths relative to cpu/.
target_sources(sextant_cpu PRIVATE matching/match_cpu.cpp matching/match_cpu_avx2.cpp matching/match_cpu_avx512.cpp)
sextant_avx2_sources(matching/match_cpu_avx2.cpp)
sextant_avx512_sources(matching/match_cpu_avx512.cpp)
# The Matcher's engine without CUDA (with CUDA, gpu/matching/matching.cmake builds the CPU + GPU one).
if(NOT SEXTANT_HAS_CUDA)
  target_sources(sextant_cpu PRIVATE matching/matching_backend_cpu.cpp)
endif()
