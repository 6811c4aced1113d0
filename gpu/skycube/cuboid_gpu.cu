#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "core/error.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"
#include "gpu/skycube/cuboid_gpu.hpp"
#include "gpu/skycube/skyline_engine.cuh"

namespace sextant::gpu {

void check_gpu_ordinal(int ordinal) {
  const int devices = device_count();
  if (devices == 0)
    throw Error::unsupported("no GPU found on this machine (asked for GPU " + std::to_string(ordinal) + ")");
  if (ordinal < 0 || ordinal >= devices)
    throw Error::argument("gpu_ordinal", std::to_string(ordinal), "0.." + std::to_string(devices - 1),
                          "no such CUDA device");
}

GpuDataset::GpuDataset(const Dataset& data, int gpu_ordinal) : data_(&data) {
  check_gpu_ordinal(gpu_ordinal);
  ScopedDevice scope(gpu_ordinal);
  auto device = std::make_shared<detail::DeviceDataset>(gpu_ordinal);
  cudaStream_t stream = nullptr;
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  try {
    upload_seconds_ = device->assign(data, stream);
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  SEXTANT_CUDA_CHECK(cudaStreamDestroy(stream));
  device_ = std::move(device);
}

int GpuDataset::gpu_ordinal() const noexcept {
  return device_->ordinal();
}

ParallelCuboidGpu::ParallelCuboidGpu(const SkylineGpuOptions& options) : options_(options) {
  check_gpu_ordinal(options.gpu_ordinal);
}

ParallelCuboidGpu::ParallelCuboidGpu(const ParallelCuboidGpu& other)
    : options_(other.options_), bound_(other.bound_) {}

ParallelCuboidGpu& ParallelCuboidGpu::operator=(const ParallelCuboidGpu& other) {
  if (this != &other) {
    options_ = other.options_;
    bound_ = other.bound_;
    engine_.reset();
  }
  return *this;
}

ParallelCuboidGpu::ParallelCuboidGpu(ParallelCuboidGpu&&) noexcept = default;
ParallelCuboidGpu& ParallelCuboidGpu::operator=(ParallelCuboidGpu&&) noexcept = default;
ParallelCuboidGpu::~ParallelCuboidGpu() = default;

void ParallelCuboidGpu::bind(const GpuDataset& data) {
  if (data.gpu_ordinal() != options_.gpu_ordinal)
    throw Error::argument("dataset", "on GPU " + std::to_string(data.gpu_ordinal()),
                          "GPU " + std::to_string(options_.gpu_ordinal), "bound to a hook of another GPU");
  bound_ = data.device();
}

detail::SkylineEngine& ParallelCuboidGpu::engine() {
  if (!engine_) {
    check_gpu_ordinal(options_.gpu_ordinal);
    engine_ = std::make_unique<detail::SkylineEngine>(options_.gpu_ordinal, options_.chunk_points);
  }
  return *engine_;
}

void ParallelCuboidGpu::compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
  run(in.data, in.candidates.data(), in.candidates.size(), in.subspace, out);
}

void ParallelCuboidGpu::compute_all(const Dataset& data, skycube::CuboidOutput& out) {
  run(data, nullptr, data.size(), full_mask(data.dims()), out);
}

void ParallelCuboidGpu::run(const Dataset& data, const PointId* candidates, std::size_t count, Mask subspace,
                            skycube::CuboidOutput& out) {
  if (count == 0) {
    detail::check_subspace(subspace, data.dims());
    out = skycube::CuboidOutput{};
    return;
  }
  detail::SkylineEngine& e = engine();
  const DeviceTimes before = e.times();
  const detail::DeviceDataset& device = bound_ && bound_->holds(data)                        ? *bound_
                                        : options_.cache_dataset && e.uploaded().holds(data) ? e.uploaded()
                                                                                             : e.upload(data);
  const std::uint8_t* verdicts = e.classify(device, candidates, count, subspace);
  detail::split_verdicts(verdicts, candidates, count, out);
  if (options_.time_log) {
    DeviceTimes delta = e.times();
    delta.upload -= before.upload;
    delta.kernels -= before.kernels;
    delta.download -= before.download;
    options_.time_log->add(delta);
  }
}

DeviceTimes ParallelCuboidGpu::times() const noexcept {
  return engine_ ? engine_->times() : DeviceTimes{};
}

}  // namespace sextant::gpu
