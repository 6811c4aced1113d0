// The GPU backend's stream-window operators (the four value types, the six aggregates each), and
// pinned host memory for their batches. In a build without CUDA both refuse with
// Error::unsupported.
#include "api/stream_window_engine.hpp"
#include "core/config.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/device_query.hpp"
#include "gpu/window/stream_window_gpu.hpp"
#endif

namespace sextant::window::detail {

namespace {

#if SEXTANT_HAS_CUDA
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
#else
[[noreturn]] void no_cuda() {
  throw Error::unsupported(
      "this build of Sextant has no CUDA support: stream windows on a GPU are unavailable; use --device cpu");
}
#endif

}  // namespace

std::unique_ptr<StreamWindowEngine> make_gpu_stream_engine(ValueType type, StreamAggregateKind kind,
                                                           const StreamWindowOptions& options,
                                                           const StreamDeviceOptions& device) {
#if SEXTANT_HAS_CUDA
  check_gpu(device.device.index);
  GpuStreamBackend::Config config{};
  config.device = device.device.index;
  if (device.max_batch > 0) config.max_batch = device.max_batch;
  return visit_value_type(
      type, [&](auto v) { return make_stream_engine<GpuStreamBackend, decltype(v)>(kind, options, config); });
#else
  (void)type, (void)kind, (void)options, (void)device;
  no_cuda();
#endif
}

HostBuffer allocate_gpu_host(int gpu, std::size_t bytes) {
#if SEXTANT_HAS_CUDA
  check_gpu(gpu);
  void* p = gpu::allocate_pinned(bytes);
  return HostBuffer(p, bytes, gpu::free_pinned);
#else
  (void)gpu, (void)bytes;
  no_cuda();
#endif
}

}  // namespace sextant::window::detail
