// The GPU skyline of one subspace, behind ParallelCuboidGpu (SDSC's cuboid hook) and
// ExtendedSkylineGpu (the full-space extended skyline). Internal: CUDA header, .cu files only.
//
// Classifies every candidate p of subspace m (columns projected on the fly from the dataset
// uploaded once per run) as
//   0 - in the skyline S_m: no candidate dominates p (<= on all of m, < on one),
//   1 - dominated, not strictly: in S+_m \ S_m,
//   2 - strictly dominated by some candidate (< on all of m).
//
// Sort and prune (GGS / SkyAlign): candidates are sorted by the sum of their projected values
// (added in the same column order for every point, so a dominator's rounded sum is never larger).
// They are then settled in chunks of that order, and a point is compared only with
//   * the skyline points of earlier chunks (S): if q dominates p, some skyline point s <= q
//     dominates p as well, and strictly so when q strictly dominates p; its sum is <= p's;
//   * the points of its own chunk with a sum <= its own;
//   * the points after its chunk with a sum equal to its own (ties of the sum across the chunk
//     end: rare, a separate small kernel).
// Each candidate also gets a 4-bit code per projected column (the first 16 columns): how many of
// 7 sampled per-cuboid octile pivots are <= its value. q <= p needs code(q) <= code(p) in every
// field, a 64-bit SWAR test that skips most float comparisons without loading a row.
//
// Every buffer is grow-only and belongs to the engine (one CUDA stream each): allocated on the
// first cuboid that needs it, reused by every later one.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/skycube/device_times.hpp"
#include "templates/skycube/hooks.hpp"

namespace sextant::gpu::detail {

// Grow-only: reallocates (dropping the contents) only when `count` exceeds the capacity, with
// headroom so that slowly growing inputs do not reallocate every time.
template <class T>
void reserve(DeviceBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() >= count) return;
  buffer = DeviceBuffer<T>();  // free first: the old and new buffers need not fit together
  buffer = DeviceBuffer<T>(count + count / 4);
}

// Page-locked host memory (async copies), grow-only.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void reserve(std::size_t count) {
    if (size_ >= count) return;
    if (data_ != nullptr) SEXTANT_CUDA_CHECK(cudaFreeHost(data_));
    data_ = nullptr;
    size_ = 0;
    const std::size_t grown = count + count / 4;
    SEXTANT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), grown * sizeof(T)));
    size_ = grown;
  }
  T* data() noexcept { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// A dataset's rows (n x d floats, row-major) on one device.
class DeviceDataset {
 public:
  explicit DeviceDataset(int ordinal) : ordinal_(ordinal) {}

  // Copies `data` (grow-only buffer) on `stream` and waits for the copy. Returns the seconds the
  // copy took on the device.
  double assign(const Dataset& data, cudaStream_t stream);
  // Whether this holds `data` (the same object with the same buffer and shape).
  bool holds(const Dataset& data) const noexcept {
    return source_ == &data && source_values_ == data.values().data() && n_ == data.size() &&
           d_ == data.dims();
  }

  int ordinal() const noexcept { return ordinal_; }
  const float* values() const noexcept { return values_.data(); }
  std::size_t size() const noexcept { return n_; }
  int dims() const noexcept { return d_; }

 private:
  int ordinal_;
  DeviceBuffer<float> values_;
  const Dataset* source_ = nullptr;
  const float* source_values_ = nullptr;
  std::size_t n_ = 0;
  int d_ = 0;
};

// Per-candidate verdicts of one run, in candidate order.
enum Verdict : std::uint8_t { skyline = 0, dominated = 1, strictly_dominated = 2 };

class SkylineEngine {
 public:
  // chunk_points: candidates settled per step (0 = chosen here). Makes `ordinal` current while
  // creating the stream; every call below does the same.
  SkylineEngine(int ordinal, std::size_t chunk_points);
  ~SkylineEngine();
  SkylineEngine(const SkylineEngine&) = delete;
  SkylineEngine& operator=(const SkylineEngine&) = delete;

  // Classifies `count` candidates of `data` in subspace `mask`: `candidates` holds ascending ids
  // (nullptr: all points 0 .. count-1, no upload). Returns the verdicts in candidate order; the
  // span stays valid until the next call.
  const std::uint8_t* classify(const DeviceDataset& data, const PointId* candidates, std::size_t count,
                               Mask mask);

  // This engine's own copy of a dataset (for callers that did not upload one to share); the
  // upload counts in times().
  const DeviceDataset& upload(const Dataset& data);
  const DeviceDataset& uploaded() const noexcept { return own_; }

  int ordinal() const noexcept { return ordinal_; }
  const DeviceTimes& times() const noexcept { return times_; }

 private:
  void reserve_for(std::size_t count);

  int ordinal_;
  std::size_t chunk_points_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[4] = {nullptr, nullptr, nullptr, nullptr};  // upload, kernels, download, done
  DeviceDataset own_;
  // Per candidate (capacity grows with the largest cuboid).
  DeviceBuffer<PointId> candidates_;
  DeviceBuffer<std::uint32_t> keys_in_, keys_, order_in_, order_;  // sort by key; order = candidate index
  DeviceBuffer<PointId> ids_;                                      // per sorted position
  DeviceBuffer<std::uint64_t> codes_;                              // per sorted position
  DeviceBuffer<std::uint32_t> status_;                             // per sorted position: Verdict
  DeviceBuffer<std::uint32_t> skyline_;                            // sorted positions in S so far
  DeviceBuffer<std::uint8_t> verdicts_;                            // per candidate
  DeviceBuffer<std::uint32_t> skyline_count_;                      // 1
  DeviceBuffer<float> pivots_;                                     // 16 x 7
  DeviceBuffer<unsigned char> sort_scratch_;
  PinnedBuffer<PointId> host_candidates_;
  PinnedBuffer<std::uint8_t> host_verdicts_;
  DeviceTimes times_;
};

// Throws Error::argument unless `mask` is a non-empty subspace of d columns.
void check_subspace(Mask mask, int d);

// The verdicts of `count` candidates (nullptr: ids 0 .. count-1) as a cuboid's two ascending
// lists; `out` is replaced.
void split_verdicts(const std::uint8_t* verdicts, const PointId* candidates, std::size_t count,
                    skycube::CuboidOutput& out);

}  // namespace sextant::gpu::detail
