// Slider's selector: a cost model over a measured device profile that says, for one problem
// (n, W, S, type, function), which algorithms can run, with which configuration, and how long
// each should take; `automatic` takes the cheapest. Plain C++ (the GPU calibration fills the
// profile on the device in use; tests use synthetic profiles), so the choice is testable on
// any machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "templates/window/count_window.hpp"
#include "templates/window/count_window_hooks.hpp"
#include "templates/window/count_window_policy.hpp"

namespace sextant::window {

// What the cost model knows about a GPU. Rates are per second, for the whole device.
struct DeviceProfile {
  std::string name;
  int multiprocessors = 0;
  std::uint64_t shared_per_block = 0;  // opt-in limit of one block, bytes
  std::uint64_t shared_per_sm = 0;     // bytes
  std::uint64_t l2_bytes = 0;
  std::uint64_t free_memory = 0;     // device memory a run may take for its workspace
  double read_bandwidth = 0;         // streaming read, bytes/s
  double write_bandwidth = 0;        // streaming write, bytes/s
  double global_atomic_rate = 0;     // 64-bit atomics, a warp on consecutive addresses (COOP-OPT's edges)
  double contended_atomic_rate = 0;  // 64-bit atomics where neighbouring threads share targets (GBL)
  double shared_atomic_rate = 0;     // 64-bit shared-memory atomics, whole device
  double instruction_rate = 0;       // thread instructions/s (SMs x 128 lanes x clock)
  double launch_seconds = 4e-6;      // one kernel launch in a stream
};

// A synthetic profile with the H100 SXM's published shape and round rates; for tests and for
// planning without a device. Not a measurement.
DeviceProfile reference_h100_profile();

// REDUCED-PREFIX's configurations: as in the paper (CUB's scan over the chunk partials), or
// with tile-local running totals and a CUB scan over the tile totals only.
enum class ReducedVariant : std::uint8_t { chunk_scan, tile_scan };

struct CountPlan {
  CountAlgorithm algorithm = CountAlgorithm::coop;
  std::uint32_t block_threads = policy::block_threads;
  std::uint64_t tile = 0;    // values per block tile (SH, COOP-OPT, REDUCED-PREFIX slicing)
  std::uint32_t stages = 2;  // input buffers of the tile kernel (1 or 2)
  bool heads = false;        // S > W with wide gaps: windows read directly (COOP-OPT, REDUCED-PREFIX)
  ReducedVariant reduced = ReducedVariant::chunk_scan;
  std::uint32_t pieces = 1;  // `heads`: parts of each window read by separate lane groups
  std::uint32_t group = 1;   // lanes per window in `heads` mode
  std::uint32_t shared_bytes = 0;
  std::uint64_t workspace_bytes = 0;
  double predicted_seconds = 0;

  // e.g. "coop (tile 8192, group 4, 256 threads, 66 KiB shared)"
  std::string describe() const;
};

struct PlanResult {
  std::optional<CountPlan> plan;  // empty when the algorithm cannot run the problem here
  std::string reason;             // why not, when empty
};

// Why `algorithm` cannot run `kind` at all (the aggregate lacks the trait the algorithm needs:
// a device atomic for GBL, SH and COOP-OPT, an inverse for the prefix algorithms); empty if it
// can.
std::string missing_trait(CountAlgorithm algorithm, AggregateKind kind);
// Throws Error::argument (exit 2) naming the algorithm and the function when a named algorithm
// lacks the trait, Error::unsupported when no algorithm can run `kind` (`automatic`).
void check_count_algorithm(CountAlgorithm algorithm, AggregateKind kind);

// The plan for one named algorithm (never `automatic`).
PlanResult plan_count_window(CountAlgorithm algorithm, const CountWindowProblem& problem,
                             const DeviceProfile& profile);
bool can_run(CountAlgorithm algorithm, const CountWindowProblem& problem, const DeviceProfile& profile);
// Every algorithm's plan or reason, in enum order (gbl .. block-scan).
std::vector<std::pair<CountAlgorithm, PlanResult>> plan_all(const CountWindowProblem& problem,
                                                            const DeviceProfile& profile);
// The cheapest runnable plan (COOP-OPT always runs a function with a device atomic, so there is
// one). `algorithm` other than automatic returns that algorithm's plan or throws (see
// check_count_algorithm; Error::unsupported with the reason when resources fall short).
CountPlan select_count_window(CountAlgorithm algorithm, const CountWindowProblem& problem,
                              const DeviceProfile& profile);

// Lanes per window of the direct (`heads`) kernel: one 64-byte share per lane, up to a warp.
std::uint32_t heads_group(std::uint64_t length, std::uint32_t value_bytes);
// Whether COOP-OPT and REDUCED-PREFIX read windows directly instead of streaming tiles: S > W
// with gaps of at least 64 bytes between windows.
bool uses_heads(const CountWindowProblem& problem);

// Bytes of device memory an algorithm's workspace needs beyond the input and the output.
std::uint64_t workspace_bytes(CountAlgorithm algorithm, const CountWindowProblem& problem);

}  // namespace sextant::window
