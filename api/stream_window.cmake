# Stream windows (paper 000): the facade. Each backend instantiates its operators beside its code
# (cpu/window/stream_engine_cpu_*.cpp, gpu/window/stream_engine_gpu.cpp).
target_sources(sextant_api PRIVATE stream_window.cpp)
