# Stream-window CPU specialisation (paper 000): pane stage (per-thread shards, AVX2 and scalar
# kernels) and window stage (B-PAT per key and spec).
target_sources(sextant_cpu PRIVATE
  window/stream_window_cpu.cpp window/stream_window_cpu_positional_integer.cpp
  window/stream_window_cpu_positional_floating.cpp
  window/stream_batch_check.cpp window/stream_bpat_memory.cpp window/stream_key_index.cpp
  window/stream_pane_shard.cpp window/stream_pane_kernel_scalar.cpp window/stream_pane_kernel_avx2.cpp
  # the operators the api facade makes (api/stream_window_engine.hpp), split by value family so
  # that they compile in parallel
  window/stream_engine_cpu_integer.cpp window/stream_engine_cpu_floating.cpp)
sextant_avx2_sources(window/stream_pane_kernel_avx2.cpp)
