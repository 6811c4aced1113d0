// Owning device allocation, allocated once per run and reused; never in per-task paths.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace sextant::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : size_(count) {
    if (count != 0) SEXTANT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Makes `ordinal` current for the scope and restores the previous device.
class ScopedDevice {
 public:
  explicit ScopedDevice(int ordinal) {
    SEXTANT_CUDA_CHECK(cudaGetDevice(&previous_));
    SEXTANT_CUDA_CHECK(cudaSetDevice(ordinal));
  }
  ~ScopedDevice() { cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace sextant::gpu
