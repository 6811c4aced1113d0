// The GPU cuboid hook of SDSC (paper 004, section 6.1): the skyline S_δ and the strict-dominance
// extended skyline S+_δ of one cuboid from its parent's candidates, on one GPU, with the whole
// device working on the cuboid. Plain C++: no CUDA headers.
//
// The algorithm (skyline_engine.cuh): candidates sorted by their projected sum, settled in chunks
// of that order against the skyline found so far and their own chunk, in shared-memory tiles,
// with 4-bit octile codes per column pruning most float comparisons. Columns are projected on the
// fly from the dataset on the device (no per-cuboid copy); device buffers grow to the largest
// cuboid once and are reused; each hook has its own CUDA stream, so several hooks (host threads)
// keep several cuboids in flight on one GPU.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "gpu/skycube/device_times.hpp"
#include "templates/skycube/hooks.hpp"

namespace sextant::gpu {

namespace detail {
class DeviceDataset;  // skyline_engine.cuh
class SkylineEngine;
}  // namespace detail

struct SkylineGpuOptions {
  int gpu_ordinal = 0;
  // Candidates settled per step (0 = chosen by the engine). Tests use small chunks to cover the
  // chunk boundaries.
  std::size_t chunk_points = 0;
  // Where the hook also adds its device times after each cuboid (optional; for hooks that a
  // template makes and drops, like the scheduler's per-worker hooks).
  std::shared_ptr<DeviceTimeLog> time_log;
  // Without a bound dataset: keep the dataset uploaded by the first compute() and reuse it while
  // later calls pass the same Dataset object (same address, buffer and shape). Only for callers
  // whose dataset outlives the hook unchanged (a template run's per-worker hooks); otherwise
  // every call uploads.
  bool cache_dataset = false;
};

// A dataset uploaded to one GPU once per run and shared by every hook on that GPU. The Dataset
// must outlive it and stay unchanged.
class GpuDataset {
 public:
  // Uploads now. Throws Error for an ordinal that names no device or a CUDA failure (out of
  // device memory: ErrorKind::resource).
  GpuDataset(const Dataset& data, int gpu_ordinal);

  const Dataset& data() const noexcept { return *data_; }
  int gpu_ordinal() const noexcept;
  double upload_seconds() const noexcept { return upload_seconds_; }
  const std::shared_ptr<const detail::DeviceDataset>& device() const noexcept { return device_; }

 private:
  const Dataset* data_;
  std::shared_ptr<const detail::DeviceDataset> device_;
  double upload_seconds_ = 0;
};

// Throws Error::argument unless 0 <= ordinal < the number of CUDA devices.
void check_gpu_ordinal(int ordinal);

class ParallelCuboidGpu {
 public:
  static constexpr std::string_view name = "gpu-cuboid-skyline";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  static constexpr bool parallel = true;

  ParallelCuboidGpu() = default;  // GPU 0, checked on first use
  // Throws Error for an ordinal that names no device.
  explicit ParallelCuboidGpu(const SkylineGpuOptions& options);
  // Copies share the bound dataset but get their own stream and buffers (made on first use).
  ParallelCuboidGpu(const ParallelCuboidGpu& other);
  ParallelCuboidGpu& operator=(const ParallelCuboidGpu& other);
  ParallelCuboidGpu(ParallelCuboidGpu&&) noexcept;
  ParallelCuboidGpu& operator=(ParallelCuboidGpu&&) noexcept;
  ~ParallelCuboidGpu();

  // Computes with `data` already on the device: CuboidInput::data must then be data.data().
  // Without a binding (or for another dataset), compute() uploads the input's dataset into the
  // hook's own buffer on every call (correct, but a cost per cuboid) unless cache_dataset is set.
  void bind(const GpuDataset& data);

  // out.skyline = S_δ(candidates), out.extended_only = S+_δ \ S_δ, both ascending. `out` is
  // written only once the cuboid is done. Throws Error on a CUDA failure or a bad subspace.
  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out);
  // The full-space cuboid with every point of `data` a candidate (no id list to upload): the
  // extended skyline, split.
  void compute_all(const Dataset& data, skycube::CuboidOutput& out);

  // Device time of every cuboid this hook computed (and its uploads).
  DeviceTimes times() const noexcept;

 private:
  detail::SkylineEngine& engine();
  void run(const Dataset& data, const PointId* candidates, std::size_t count, Mask subspace,
           skycube::CuboidOutput& out);

  SkylineGpuOptions options_;
  std::shared_ptr<const detail::DeviceDataset> bound_;
  std::unique_ptr<detail::SkylineEngine> engine_;
};

static_assert(skycube::ParallelCuboidHook<ParallelCuboidGpu>);

}  // namespace sextant::gpu
