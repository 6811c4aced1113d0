# MDMC's CPU hooks: filter + refine (one kernel instantiation per instruction set, each a variant,
# registered in skycube/mdmc_variants.hpp) and the quad tree. Paths relative to cpu/.
target_sources(sextant_cpu PRIVATE
  skycube/mdmc_cpu.cpp
  skycube/quad_tree_cpu.cpp
  skycube/mdmc_cpu_scalar.cpp
  skycube/mdmc_cpu_avx2.cpp
  skycube/mdmc_cpu_avx512.cpp)
sextant_avx2_sources(skycube/mdmc_cpu_avx2.cpp)
sextant_avx512_sources(skycube/mdmc_cpu_avx512.cpp)
