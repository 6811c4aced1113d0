// What the scheduler runs. A Codelet holds one implementation per device kind (either may be
// missing); a Task is one unit of a batch with an id, a size in items and its codelet; a Chunk is
// what one call of an implementation processes: a whole task, or items [begin, end) of a
// parallel_for range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>

#include "core/device.hpp"
#include "scheduler/worker.hpp"

namespace sextant::scheduler {

struct Chunk {
  std::uint64_t task = 0;  // the task's id (batch) or RunOptions::id (parallel_for)
  std::size_t begin = 0;   // batch: 0
  std::size_t end = 0;     // batch: the task's size

  std::size_t size() const noexcept { return end - begin; }
};

// Where an implementation runs. A GPU worker's implementation picks its device itself
// (cudaSetDevice(ctx.gpu_ordinal())); a CPU group worker's implementation may use threads()
// OpenMP threads, which inherit the group's binding.
struct WorkerContext {
  const WorkerInfo* info = nullptr;
  std::stop_token stop;  // set when the run is cancelled (scheduler shutdown): long tasks may return early

  int worker() const noexcept { return info->id; }
  DeviceKind kind() const noexcept { return info->kind; }
  DeviceId device() const noexcept { return info->device; }
  int gpu_ordinal() const noexcept { return info->gpu_ordinal; }
  int threads() const noexcept { return info->threads(); }
};

// Throwing any exception means "this device failed this chunk" (see RunOptions::on_failure). A
// chunk may then run again elsewhere, so an implementation must be safe to re-run after it threw
// (publish results at its end, or idempotently).
using TaskFunction = std::function<void(const Chunk&, const WorkerContext&)>;

struct Codelet {
  std::string name;  // shown in errors; also keys the throughput the scheduler remembers
  TaskFunction cpu;  // empty: no CPU implementation
  TaskFunction gpu;  // empty: no GPU implementation
  // Device memory one item needs on a GPU (0 = unknown): bounds a GPU chunk to half its memory.
  std::size_t gpu_bytes_per_item = 0;

  bool can_execute(DeviceKind kind) const noexcept {
    return kind == DeviceKind::gpu ? static_cast<bool>(gpu) : static_cast<bool>(cpu);
  }
  const TaskFunction& implementation(DeviceKind kind) const noexcept {
    return kind == DeviceKind::gpu ? gpu : cpu;
  }
};

// One unit of a batch. The codelet is not owned: it must outlive the run.
struct Task {
  std::uint64_t id = 0;
  std::size_t size = 1;  // items: weighs the initial split and the statistics
  const Codelet* codelet = nullptr;
};

}  // namespace sextant::scheduler
