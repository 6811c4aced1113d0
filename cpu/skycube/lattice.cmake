# The CPU hooks of the lattice-traversal skycube templates (STSC, SDSC): cuboids (one kernel
# instantiation per instruction set, each a variant: cuboid_variants.hpp) and the full-space
# extended skyline. Paths relative to cpu/.
target_sources(sextant_cpu PRIVATE
  skycube/cuboid_state.cpp
  skycube/cuboid_engine.cpp
  skycube/engine_pool.cpp
  skycube/cuboid_kernels_scalar.cpp
  skycube/cuboid_kernels_avx2.cpp
  skycube/cuboid_kernels_avx512.cpp
  skycube/cuboid_cpu.cpp
  skycube/extended_skyline_cpu.cpp
  skycube/skyline_backend.cpp
  skycube/small_skyline.cpp)
sextant_avx2_sources(skycube/cuboid_kernels_avx2.cpp)
sextant_avx512_sources(skycube/cuboid_kernels_avx512.cpp)
