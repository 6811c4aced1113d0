# Count-window CPU specialisation: one variant per instruction set (registered in
# count_window_variants.hpp) and the entry api/ calls (count_window_backend.cpp).
target_sources(sextant_cpu PRIVATE window/count_window_cpu.cpp window/count_window_cpu_scalar.cpp
                                   window/count_window_cpu_avx2.cpp window/count_window_cpu_avx512.cpp
                                   window/count_window_backend.cpp)
sextant_avx2_sources(window/count_window_cpu_avx2.cpp)
sextant_avx512_sources(window/count_window_cpu_avx512.cpp)
