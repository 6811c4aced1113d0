# Count-window CPU specialisation: the hooks per instruction set and the public entry.
target_sources(sextant_cpu PRIVATE window/count_window_cpu.cpp window/count_window_cpu_scalar.cpp
                                   window/count_window_cpu_avx2.cpp)
sextant_avx2_sources(window/count_window_cpu_avx2.cpp)
