// The GPU specialisation of MDMC's filter + refine hook (paper 004, section 6.2). Plain C++:
// no CUDA headers, so the template and host code include it anywhere.
//
// One thread block per point p of S+. Its two bitmaps over the 2^d subspace masks ("dominated"
// and "strictly dominated") live in shared memory (global memory per block when 2 * 2^d bits
// exceed the device's opt-in shared memory). A strided scan over all leaves' path labels is the
// filter; a second strided scan picks, per warp and by ballot, the leaves that can still add
// something and tests them warp-cooperatively (lane j compares column j). The block then closes
// the strict bitmap downwards; the "dominated" words stay on the device until the HashCube is
// assembled (mdmc_gpu_kept.cuh) or, where it lacks the room, go back to the host in batches.
//
// The device state (the tree's flat arrays, bitmap and output buffers, pinned staging, a stream)
// is created on the first process() of a run and reused by every later call with the same tree.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "core/device.hpp"
#include "gpu/skycube/device_times.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/mdmc.hpp"

namespace sextant::skycube {

struct MdmcGpuOptions {
  int gpu_ordinal = 0;
  // Keeps the bitmaps in global memory even where shared memory would hold them (tests).
  bool force_global_bitmaps = false;
  // Points per kernel launch; 0 = chosen from d (bounded device memory for the outputs).
  std::size_t batch_points = 0;
  // Host threads that append a batch's bitmaps to the HashCube part while the next batch runs
  // (an OpenMP team of the worker's cores): at d = 16 one thread cannot keep up.
  int insert_threads = 1;
  // Keeps the points' words in device memory until HashCube::from_parts sorts them there, when the
  // device has room (kept_words.hpp); otherwise, or when false, each batch is downloaded and
  // inserted on the host.
  bool keep_on_device = true;
  // Words per group of the kept words' sort; 0 = policy::Gpu::KeptWords::group_items (tests cut
  // groups of one word position).
  std::size_t kept_group_items = 0;
  // Where the hook adds its device time (tree upload, kernels, bitmap downloads); optional.
  std::shared_ptr<gpu::DeviceTimeLog> time_log;
};

namespace detail {
class MdmcGpuState;  // defined in mdmc_gpu.cu
// Appends downloaded bitmap rows to `out` on `threads` OpenMP threads (mdmc_gpu_insert.cpp).
void insert_downloaded(HashCubePart& out, std::span<const PointId> ids, std::span<const Word> dominated,
                       int threads);
}  // namespace detail

class MdmcGpu {
 public:
  static constexpr std::string_view name = "mdmc-gpu";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;

  MdmcGpu() = default;
  // Throws Error for a gpu_ordinal that names no device.
  explicit MdmcGpu(const MdmcGpuOptions& options);

  // The per-run setup: device buffers, the tree's arrays uploaded. process() does it on first use
  // when nobody called this; a scheduler calls it before the run so that the setup happens once
  // per GPU and does not count as processing time.
  void prepare(const MdmcShared& shared);

  // Filter + refine for the leaf positions [tasks.begin, tasks.end); one insert per point.
  // Copies share the device state: use one MdmcGpu per worker thread (the template does).
  void process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out);

  // Whether the last process() kept the bitmaps in global memory (the tiled fallback).
  bool used_global_bitmaps() const noexcept;
  // Whether this run's words stay on the device (keep_on_device, and the device had room).
  bool kept_words() const noexcept;

 private:
  MdmcGpuOptions options_;
  std::shared_ptr<detail::MdmcGpuState> state_;
};

static_assert(PreparedMdmcHook<MdmcGpu, MdmcShared>);

}  // namespace sextant::skycube
