# GPU skycube: the skyline engine behind the SDSC cuboid hook and the extended skyline, the MDMC
# hook, and the single-GPU entries. Included from gpu/CMakeLists.txt when CUDA is on.
target_sources(sextant_gpu PRIVATE
  skycube/skyline_engine.cu
  skycube/cuboid_gpu.cu
  skycube/extended_skyline_gpu.cu
  skycube/mdmc_gpu.cu
  skycube/mdmc_gpu_kept.cu
  skycube/mdmc_gpu_insert.cpp
  skycube/quad_tree_gpu.cu
  skycube/mdmc_skycube_gpu.cu
  skycube/lattice_skycube_gpu.cpp)
# The entries use the CPU's OpenMP team for the template's bookkeeping (cpu/omp_team.hpp).
target_link_libraries(sextant_gpu PUBLIC sextant_cpu)
