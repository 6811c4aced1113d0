# MDMC's CPU specialisation: the hook (one kernel instantiation per instruction set, each a variant)
# and the public entry. Paths relative to cpu/. The public entry uses the extended skyline hook of
# lattice.cmake.
target_sources(sextant_cpu PRIVATE
  skycube/mdmc_cpu.cpp
  skycube/quad_tree_cpu.cpp
  skycube/mdmc_cpu_scalar.cpp
  skycube/mdmc_cpu_avx2.cpp
  skycube/mdmc_cpu_avx512.cpp
  skycube/mdmc_skycube_cpu.cpp)
sextant_avx2_sources(skycube/mdmc_cpu_avx2.cpp)
sextant_avx512_sources(skycube/mdmc_cpu_avx512.cpp)
