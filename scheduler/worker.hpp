// Which workers a scheduler runs and in what order a worker steals from the others. CPU workers come
// first (ids 0 .. cpu_workers-1, grouped by NUMA node), then the host workers of each GPU (one by
// default).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "core/device.hpp"
#include "scheduler/topology.hpp"

namespace sextant::scheduler {

enum class CpuWorkers {
  per_core,   // one pinned worker per core: hooks are single-threaded
  per_group,  // one worker per group of cores: the hook is itself parallel (e.g. OpenMP with
              // WorkerContext::threads threads) and inherits the group's binding
};

struct WorkerLayout {
  CpuWorkers cpu = CpuWorkers::per_core;
  int cores_per_group = 0;  // per_group: cores per worker, 0 = a whole NUMA node; never crosses nodes
  DeviceSelection devices{true, {}};  // which NUMA nodes / GPUs get workers (default: all)
  // At most this many cores of the selected NUMA nodes get workers (0 = all of them), spread as
  // evenly as the nodes allow and taken from the front of each node: "--threads" on a selection.
  int cpu_cores = 0;
  // Each GPU host thread gets a core of the GPU's NUMA node to itself (one the core limit left
  // free, else one taken from that node's CPU workers while any remain): the host thread does real
  // work (staging, merging results) and would otherwise time-share a core with a CPU worker.
  bool gpu_own_core = false;
  // With gpu_own_core: cores each GPU host worker takes (the first as above, more while free cores
  // remain or the node's CPU workers keep at least one). A hook may run that many threads, e.g.
  // MDMC's HashCube insertion, which would otherwise pace a fast GPU.
  int gpu_cores = 1;
  // With gpu_own_core: the cores of a GPU's node that no worker got (a selection of GPUs only, or
  // a core limit) are then dealt one at a time to that node's GPU host workers, within cpu_cores
  // when it is set. Hooks that scale with host threads (MDMC's insertion) and the bookkeeping run
  // on a template's HostTeam then use the whole machine when only GPUs compute.
  bool gpu_spare_cores = false;
  // Host workers per GPU, each running one task at a time on the same GPU (each hook with its own
  // stream): several keep a GPU busy with tasks too small to fill it alone (SDSC's small cuboids).
  int gpu_workers = 1;
};

struct WorkerInfo {
  int id = 0;
  DeviceKind kind = DeviceKind::cpu;
  DeviceId device;     // numaN for CPU workers, gpuN for GPU workers: the unit of the report
  int numa_node = -1;  // -1: a GPU of unknown affinity
  int package = -1;
  std::vector<int> cores;     // processing units the thread is bound to (a GPU worker: its node's cores
                              // or, with WorkerLayout::gpu_own_core, the ones it owns)
  bool shares_cores = false;  // a GPU worker bound to its node's cores, which CPU workers use too
  int gpu_ordinal = -1;
  std::size_t gpu_memory_bytes = 0;

  // Threads a hook may use on this worker without oversubscribing: the cores it owns.
  int threads() const noexcept {
    return shares_cores ? 1 : static_cast<int>(std::max<std::size_t>(cores.size(), 1));
  }
};

// Workers for a topology; throws Error when the selection names a missing NUMA node or GPU, the
// core limit is negative, or no worker is left at all.
std::vector<WorkerInfo> plan_workers(const Topology& topology, const WorkerLayout& layout);

// The order in which `thief` tries the other workers: its own NUMA node first (same package before
// other packages, where a node spans several), then other nodes of its package, then the rest;
// within a tier, starting after the thief's id so thieves spread over victims.
std::vector<int> victim_order(std::span<const WorkerInfo> workers, int thief);

}  // namespace sextant::scheduler
