// The GPU stream-window stages' members: CUDA-free wrappers (pimpl) around PaneCore and
// WindowCore on the CUDA executor, every call made on the stage's device. Included by the .cu
// files that instantiate the stages: the built-in aggregates in gpu/window/stream_gpu_*.cu, a
// user aggregate in its own .cu with SEXTANT_STREAM_GPU_INSTANTIATE(MyAggregate).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>

#include "gpu/cuda_check.cuh"
#include "gpu/device_query.hpp"
#include "gpu/window/stream_gpu_exec.cuh"
#include "gpu/window/stream_pane_stage_gpu.hpp"
#include "gpu/window/stream_window_gpu.hpp"
#include "gpu/window/stream_window_stage_gpu.hpp"

namespace sextant::window {

namespace detail::stream_gpu {

// Makes `device` current for the scope (checked), restores the previous one (unchecked: it
// runs in destructors too).
class OnDevice {
 public:
  explicit OnDevice(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      previous_ = -1;
    }
    if (device != previous_) SEXTANT_CUDA_CHECK(cudaSetDevice(device));
  }
  ~OnDevice() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = -1;
};

inline int checked_device(int device) {
  const int count = ::sextant::gpu::device_count();
  if (device < 0 || device >= count)
    throw Error::argument(
        "device", "gpu" + std::to_string(device),
        count == 0 ? "a CUDA device (none found)" : "gpu0 .. gpu" + std::to_string(count - 1), "no such GPU");
  return device;
}

// A stage's core, built, called and destroyed with its device current (the stages' pimpl).
template <class Core>
class OnItsDevice {
 public:
  OnItsDevice(const StreamGeometry& geometry, const GpuStreamBackend::Config& config)
      : device_(checked_device(config.device)) {
    OnDevice on(device_);
    core_.emplace(geometry, config);
  }
  ~OnItsDevice() {
    try {
      OnDevice on(device_);
      core_.reset();
    } catch (...) {  // no device to switch to: free what can be freed
      core_.reset();
    }
  }
  OnItsDevice(const OnItsDevice&) = delete;
  OnItsDevice& operator=(const OnItsDevice&) = delete;

  template <class F>
  void run(F&& f) {
    OnDevice on(device_);
    f(*core_);
  }
  const Core& core() const noexcept { return *core_; }

 private:
  int device_;
  std::optional<Core> core_;
};

}  // namespace detail::stream_gpu

template <StreamAggregate A>
struct GpuPaneStage<A>::Impl
    : detail::stream_gpu::OnItsDevice<detail::stream_gpu::PaneCore<A, detail::stream_gpu::DeviceExec>> {
  using Base =
      detail::stream_gpu::OnItsDevice<detail::stream_gpu::PaneCore<A, detail::stream_gpu::DeviceExec>>;
  using Base::Base;
};

template <StreamAggregate A>
GpuPaneStage<A>::GpuPaneStage(const StreamGeometry& geometry, const GpuStreamBackend::Config& config)
    : impl_(std::make_unique<Impl>(geometry, config)) {}
template <StreamAggregate A>
GpuPaneStage<A>::~GpuPaneStage() = default;
template <StreamAggregate A>
GpuPaneStage<A>::GpuPaneStage(GpuPaneStage&&) noexcept = default;
template <StreamAggregate A>
GpuPaneStage<A>& GpuPaneStage<A>::operator=(GpuPaneStage&&) noexcept = default;

template <StreamAggregate A>
void GpuPaneStage<A>::push(const StreamBatch<typename A::Input>& batch) {
  impl_->run([&](auto& core) { core.push(batch); });
}

template <StreamAggregate A>
void GpuPaneStage<A>::advance_watermark(std::int64_t wm) {
  impl_->run([&](auto& core) { core.advance_watermark(wm); });
}

template <StreamAggregate A>
void GpuPaneStage<A>::release(ClosedPanes& closed) {
  impl_->run([&](auto& core) { core.release(closed); });
}

template <StreamAggregate A>
void GpuPaneStage<A>::release_all(ClosedPanes& closed) {
  impl_->run([&](auto& core) { core.release_all(closed); });
}

template <StreamAggregate A>
std::int64_t GpuPaneStage<A>::watermark() const {
  return impl_->core().watermark();
}

template <StreamAggregate A>
StreamCounters GpuPaneStage<A>::counters() const {
  return impl_->core().counters();
}

template <StreamAggregate A>
struct GpuWindowStage<A>::Impl
    : detail::stream_gpu::OnItsDevice<detail::stream_gpu::WindowCore<A, detail::stream_gpu::DeviceExec>> {
  using Base =
      detail::stream_gpu::OnItsDevice<detail::stream_gpu::WindowCore<A, detail::stream_gpu::DeviceExec>>;
  using Base::Base;
};

template <StreamAggregate A>
GpuWindowStage<A>::GpuWindowStage(const StreamGeometry& geometry, const GpuStreamBackend::Config& config)
    : impl_(std::make_unique<Impl>(geometry, config)) {}
template <StreamAggregate A>
GpuWindowStage<A>::~GpuWindowStage() = default;
template <StreamAggregate A>
GpuWindowStage<A>::GpuWindowStage(GpuWindowStage&&) noexcept = default;
template <StreamAggregate A>
GpuWindowStage<A>& GpuWindowStage<A>::operator=(GpuWindowStage&&) noexcept = default;

template <StreamAggregate A>
void GpuWindowStage<A>::advance(const GpuClosedPanes<A>& closed, WindowColumns<typename A::Output>& out) {
  impl_->run([&](auto& core) { core.advance(closed, out); });
}

}  // namespace sextant::window

#define SEXTANT_STREAM_GPU_INSTANTIATE(A)            \
  template class ::sextant::window::GpuPaneStage<A>; \
  template class ::sextant::window::GpuWindowStage<A>;
