// The machine as hwloc sees it: packages, NUMA nodes and the cores (first hardware thread of each)
// that belong to them, plus the GPUs the caller found (scheduler/ needs no CUDA: gpu/ queries the
// runtime and passes ordinals, NUMA affinity and memory in). A synthetic description
// ("package:2 numa:1 core:4 pu:1") makes multi-socket logic testable on any machine; binding is
// then a no-op.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sextant::scheduler {

namespace detail {
struct HwlocTopology;  // the loaded hwloc topology, kept for binding (topology.cpp)
}  // namespace detail

struct NumaNode {
  int index = 0;                   // logical NUMA index
  std::vector<int> cores;          // OS index of one processing unit per core
  std::vector<int> core_packages;  // logical package of each core (parallel to `cores`)
};

// A GPU as the caller discovered it. Fake GPUs (tests) are fine: the scheduler only runs the
// task's gpu function on a host thread for it.
struct GpuInfo {
  int ordinal = 0;               // CUDA device ordinal, unique
  int numa_node = -1;            // NUMA node the GPU is attached to; -1 = unknown
  std::size_t memory_bytes = 0;  // device memory; 0 = unknown
  std::string name;
};

struct Topology {
  std::vector<NumaNode> numa_nodes;
  int packages = 1;
  std::vector<GpuInfo> gpus;
  bool synthetic = false;
  // Null for synthetic topologies: binding is then a no-op.
  std::shared_ptr<const detail::HwlocTopology> hwloc;

  int core_count() const noexcept;
  int gpu_count() const noexcept { return static_cast<int>(gpus.size()); }
};

// The real machine.
Topology discover_topology();
// hwloc's synthetic syntax, e.g. "package:2 core:4 pu:2"; throws Error on bad syntax.
Topology synthetic_topology(const std::string& description);

// Adds the GPUs the caller discovered; throws Error on a duplicate ordinal or a NUMA node
// outside the topology.
void add_gpus(Topology& topology, std::vector<GpuInfo> gpus);

// The logical NUMA node a PCI device (e.g. a GPU, "0000:3B:00.0" as CUDA names it) is attached to,
// from Linux sysfs (0 on a one-node machine); -1 where unknown (no sysfs entry, a synthetic topology).
int numa_node_of_pci_device(const Topology& topology, std::string_view pci_bus_id) noexcept;

enum class BindResult { bound, skipped, failed };

// Pins the calling thread to the given processing units (OS indices). A no-op (`skipped`) on a
// synthetic topology or with no units; `failed` when the OS refuses (e.g. a restricted cpuset),
// which callers report but never treat as fatal.
BindResult bind_current_thread(const Topology& topology, std::span<const int> processing_units) noexcept;

}  // namespace sextant::scheduler
