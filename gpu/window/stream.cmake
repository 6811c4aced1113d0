# Sliding windows over out-of-order streams on the GPU (paper 000): the executor (streams,
# uploads, CUB sorts and scans) once, and the two stages for each built-in aggregate in its own
# translation unit so that they compile in parallel.
target_sources(sextant_gpu PRIVATE window/stream_gpu_exec.cu window/stream_gpu_sum.cu window/stream_gpu_count.cu
                                   window/stream_gpu_min.cu window/stream_gpu_max.cu window/stream_gpu_avg.cu
                                   window/stream_gpu_var.cu window/stream_gpu_argmin.cu window/stream_gpu_argmax.cu
                                   window/stream_gpu_first.cu window/stream_gpu_last.cu window/stream_engine_gpu.cpp)
