// MDMC's quad tree built on a GPU (paper 004, section 6.2: the static tree is built once on the
// device by sorting the points by their partition masks). Plain C++ header (no CUDA).
//
// The columns of S+ are sorted on the device (CUB radix sort), one thread per column takes the
// seven pivots from its sorted column, one thread per point computes its path key, and a stable
// radix sort of the keys (the points go in ascending id order) gives the leaf order; the leaves'
// ids, masks and padded rows come back to the host, where QuadTree::from_leaves checks the order
// and builds the small node index. The same pivots, labels and keys as the host builders (the
// per-item steps are shared: quad_tree_steps.hpp), so the tree is identical.
#pragma once

#include <span>
#include <string_view>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "gpu/skycube/device_times.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/quad_tree.hpp"

namespace sextant::gpu {

class QuadTreeGpu {
 public:
  static constexpr std::string_view name = "gpu-quad-tree";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;

  QuadTreeGpu() = default;  // GPU 0, checked on first use
  // Throws Error for an ordinal that names no device.
  explicit QuadTreeGpu(int gpu_ordinal);

  // The tree over `points` (distinct ids of `data`, any order). Throws Error for bad points (as
  // QuadTree does), an ordinal that names no device, or a CUDA failure (out of device memory:
  // ErrorKind::resource). Device buffers live for the call: the tree is built once per run.
  skycube::QuadTree quad_tree(const Dataset& data, std::span<const PointId> points);

  // Device time of every call so far (uploads, kernels and sorts, downloads).
  const DeviceTimes& times() const noexcept { return times_; }

 private:
  int ordinal_ = 0;
  DeviceTimes times_;
};

static_assert(skycube::QuadTreeHook<QuadTreeGpu>);

}  // namespace sextant::gpu
