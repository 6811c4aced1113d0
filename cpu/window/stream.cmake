# Stream-window CPU specialisation (paper 000): pane stage (per-thread shards, AVX2 and scalar
# kernels) and window stage (B-PAT per key and spec).
target_sources(sextant_cpu PRIVATE
  window/stream_window_cpu.cpp window/stream_batch_check.cpp window/stream_bpat_memory.cpp window/stream_key_index.cpp
  window/stream_pane_shard.cpp window/stream_pane_kernel_scalar.cpp window/stream_pane_kernel_avx2.cpp)
sextant_avx2_sources(window/stream_pane_kernel_avx2.cpp)
