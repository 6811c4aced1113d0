# GPU skycube (MDMC hook and public entry). Included from gpu/CMakeLists.txt when CUDA is on.
target_sources(sextant_gpu PRIVATE skycube/mdmc_gpu.cu skycube/mdmc_skycube_gpu.cu skycube/extended_skyline_gpu.cu)
# The entry runs the CPU extended skyline (cpu::ExtendedSkylineCpu) before the GPU hook.
target_link_libraries(sextant_gpu PUBLIC sextant_cpu)
