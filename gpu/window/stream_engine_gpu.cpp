// The GPU backend's stream-window operators (the four value types, every aggregate the GPU
// pipeline runs), and pinned host memory for their batches: the factories that
// api/stream_window_engine.hpp declares. Built only with CUDA; cpu/cpu_backends.cpp refuses
// without it.
#include "api/stream_window_engine.hpp"
#include "gpu/device_query.hpp"
#include "gpu/window/stream_window_gpu.hpp"

namespace sextant::window::detail {

namespace {

void check_gpu(int gpu) {
  const int count = gpu::device_count();
  if (count == 0)
    throw Error::unsupported("no GPU found on this machine: stream windows on gpu" + std::to_string(gpu) +
                             " are unavailable; use --device cpu");
  if (gpu < 0 || gpu >= count)
    throw Error::argument("device", "gpu" + std::to_string(gpu),
                          "gpu0 .. gpu" + std::to_string(count - 1) + " (the GPUs of this machine)",
                          "no such GPU");
}

}  // namespace

std::unique_ptr<StreamWindowEngine> make_gpu_stream_engine(ValueType type, StreamAggregateKind kind,
                                                           const StreamWindowOptions& options,
                                                           const StreamDeviceOptions& device) {
  check_gpu(device.device.index);
  GpuStreamBackend::Config config{};
  config.device = device.device.index;
  if (device.max_batch > 0) config.max_batch = device.max_batch;
  return visit_value_type(
      type, [&](auto v) { return make_stream_engine<GpuStreamBackend, decltype(v)>(kind, options, config); });
}

HostBuffer allocate_gpu_host(int gpu, std::size_t bytes) {
  check_gpu(gpu);
  void* p = gpu::allocate_pinned(bytes);
  return HostBuffer(p, bytes, gpu::free_pinned);
}

}  // namespace sextant::window::detail
