# Count-window CPU specialisation: the hooks per instruction set and the entry api/ calls
# (count_window_backend.cpp).
target_sources(sextant_cpu PRIVATE window/count_window_cpu.cpp window/count_window_cpu_scalar.cpp
                                   window/count_window_cpu_avx2.cpp window/count_window_backend.cpp)
sextant_avx2_sources(window/count_window_cpu_avx2.cpp)
