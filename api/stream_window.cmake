# Stream windows (paper 000): the facade and its per-backend instantiations (the CPU ones split
# by value family so that they compile in parallel; the GPU ones refuse without CUDA).
target_sources(sextant_api PRIVATE stream_window.cpp stream_window_cpu_integer.cpp stream_window_cpu_floating.cpp
                                   stream_window_gpu.cpp)
