// What the scheduler runs. A Codelet lists its implementations (variants), each for one device
// kind; a Task is one unit of a batch with an id, a size in items and its codelet; a Chunk is
// what one call of an implementation processes: a whole task, or items [begin, end) of a
// parallel_for range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

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

// One implementation of a codelet: its name ("scalar", "avx2", "avx512", "cuda"), the kind of
// device it runs on, whether a given worker can run it (an instruction set the machine lacks, a
// GPU without a feature) and the function. Variants are data: a codelet lists as many as it has.
struct Variant {
  std::string name;
  DeviceKind kind = DeviceKind::cpu;
  TaskFunction run;
  std::function<bool(const WorkerInfo&)> can_run;  // empty: every worker of `kind`
  // A fallback (e.g. scalar code beside SIMD variants) runs only on workers where no other
  // variant of its kind can: it is never measured against them.
  bool fallback = false;

  bool runs_on(const WorkerInfo& w) const { return w.kind == kind && run && (!can_run || can_run(w)); }
};

// What the scheduler runs: a name (shown in errors; keys the throughput the scheduler remembers)
// and its variants. Where a worker can run several, the scheduler measures each (a few chunks
// each, every worker starting at another one so that their trials cover the range evenly, or
// from an earlier run of the same codelet) and then runs the fastest measured on that worker's
// device; the statistics say which variant ran where.
struct Codelet {
  std::string name;
  std::vector<Variant> variants;
  // Device memory one item needs on a GPU (0 = unknown): bounds a GPU chunk to half its memory.
  std::size_t gpu_bytes_per_item = 0;

  Codelet& add(std::string variant, DeviceKind kind, TaskFunction run,
               std::function<bool(const WorkerInfo&)> can_run = {}, bool fallback = false) {
    variants.push_back({std::move(variant), kind, std::move(run), std::move(can_run), fallback});
    return *this;
  }
  // Some variant is of this kind / runs on this worker.
  bool can_execute(DeviceKind kind) const noexcept {
    for (const Variant& v : variants)
      if (v.kind == kind && v.run) return true;
    return false;
  }
  bool can_execute(const WorkerInfo& w) const {
    for (const Variant& v : variants)
      if (v.runs_on(w)) return true;
    return false;
  }
};

// One unit of a batch. The codelet is not owned: it must outlive the run.
struct Task {
  std::uint64_t id = 0;
  std::size_t size = 1;  // items: weighs the initial split and the statistics
  const Codelet* codelet = nullptr;
};

}  // namespace sextant::scheduler
