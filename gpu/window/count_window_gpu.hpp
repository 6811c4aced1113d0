// The CUDA specialisations of the count-window template (paper 001): GBL, SH, COOP-OPT,
// DIRECT-PREFIX, REDUCED-PREFIX and Slider's selector, for input that is already in device
// memory. Plain C++: no CUDA header is needed to call them (a stream travels as void*).
//
// Every call is synchronous: it returns once the results are in `args.out` (the stream, when
// given, is synchronised before returning). Errors (a bad argument, a misaligned pointer, a
// CUDA failure, device memory exhausted) are thrown as sextant::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "templates/window/count_window.hpp"
#include "templates/window/count_window_hooks.hpp"
#include "templates/window/count_window_planner.hpp"

namespace sextant::window::gpu {

// The cost model's view of GPU `ordinal`: its properties plus rates measured by small kernels
// the first time it is asked for (about 0.1 s), cached for the rest of the process.
const DeviceProfile& device_profile(int ordinal);

// Device memory an algorithm needs besides the input and the output (partials, prefix sums,
// CUB scratch, and the in/out copies of the host-span convenience). Grows on demand and is
// kept for the next call: no allocation in the steady state. Not thread-safe: one workspace
// per concurrent caller.
class GpuWorkspace {
 public:
  explicit GpuWorkspace(int ordinal);
  ~GpuWorkspace();
  GpuWorkspace(GpuWorkspace&&) noexcept;
  GpuWorkspace& operator=(GpuWorkspace&&) noexcept;

  int ordinal() const noexcept;
  // A device buffer of at least `bytes` for `slot` (0 .. slots-1), 256-byte aligned; the
  // previous contents of a slot are lost when it grows.
  static constexpr int slots = 4;
  void* reserve(int slot, std::size_t bytes);
  std::size_t held_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs `args` (device pointers of GPU `ordinal`) with `algorithm` (automatic = the selector)
// and returns the plan that ran. `workspace` == nullptr uses a per-device workspace owned by
// the library (calls on one device are then serialised).
CountPlan aggregate_count_device(int ordinal, const CountWindowArgs& args, CountAlgorithm algorithm,
                                 GpuWorkspace* workspace = nullptr, void* stream = nullptr);

// Runs a given plan (benchmarks: a plan from plan_count_window with the device's profile).
void run_plan(int ordinal, const CountPlan& plan, const CountWindowArgs& args, GpuWorkspace& workspace,
              void* stream = nullptr);

// Device time of a plan, in seconds per run, measured with CUDA events around each of
// `repeats` runs after `warmups` untimed ones (benchmarks).
std::vector<double> time_plan(int ordinal, const CountPlan& plan, const CountWindowArgs& args,
                              GpuWorkspace& workspace, int warmups, int repeats);

// Host memory in `host` (input, results and, for the positional functions, positions): copies the
// input to the device, runs, copies the K results back. Uses the workspace's slots for the copies.
CountPlan aggregate_count_host(int ordinal, const CountWindowArgs& host, CountAlgorithm algorithm,
                               GpuWorkspace* workspace = nullptr);

// A column in device memory (for the in-device API and its tests): allocation, upload,
// download, byte fill. `offset` values of padding come first, so that view() can start at a
// pointer that is not 16-byte aligned.
class DeviceColumn {
 public:
  DeviceColumn(int ordinal, ValueType type, std::size_t size, std::size_t offset = 0);
  ~DeviceColumn();
  DeviceColumn(const DeviceColumn&) = delete;
  DeviceColumn& operator=(const DeviceColumn&) = delete;

  ColumnView view() const noexcept;
  MutableColumnView mutable_view() noexcept;
  void upload(const ColumnView& host);  // host.size == size, same type
  Column download() const;
  Column download(std::size_t first, std::size_t count) const;
  void fill_bytes(unsigned char byte);
  // Random values generated on the device, deterministic for the seed: int32 over the whole
  // range, int64 in [-2^40, 2^40), float/double in [-1000, 1000].
  void fill_random(std::uint64_t seed);

 private:
  int ordinal_;
  ValueType type_;
  std::size_t size_;
  std::size_t offset_;
  void* data_ = nullptr;
};

// The algorithms as end-to-end specialisations (templates/window/count_window_hooks.hpp).
template <CountAlgorithm A>
struct GpuCountWindow {
  static constexpr std::string_view name = A == CountAlgorithm::gbl              ? "gbl"
                                           : A == CountAlgorithm::sh             ? "sh"
                                           : A == CountAlgorithm::coop           ? "coop"
                                           : A == CountAlgorithm::direct_prefix  ? "direct-prefix"
                                           : A == CountAlgorithm::reduced_prefix ? "reduced-prefix"
                                           : A == CountAlgorithm::block_scan     ? "block-scan"
                                                                                 : "slider";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  static constexpr CountAlgorithm algorithm = A;

  int ordinal = 0;

  bool can_run(const CountWindowProblem& problem) const {
    return A == CountAlgorithm::automatic || window::can_run(A, problem, device_profile(ordinal));
  }
  void run(const CountWindowArgs& args) const { aggregate_count_device(ordinal, args, A); }
};

using GblGpu = GpuCountWindow<CountAlgorithm::gbl>;
using ShGpu = GpuCountWindow<CountAlgorithm::sh>;
using CoopGpu = GpuCountWindow<CountAlgorithm::coop>;
using DirectPrefixGpu = GpuCountWindow<CountAlgorithm::direct_prefix>;
using ReducedPrefixGpu = GpuCountWindow<CountAlgorithm::reduced_prefix>;
using BlockScanGpu = GpuCountWindow<CountAlgorithm::block_scan>;
using SliderGpu = GpuCountWindow<CountAlgorithm::automatic>;
static_assert(CountWindowAlgorithm<CoopGpu> && CountWindowAlgorithm<SliderGpu>);

}  // namespace sextant::window::gpu
