#include "api/machine.hpp"

#include <mutex>
#include <utility>
#include <vector>

#include "core/config.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/device_query.hpp"
#endif

namespace sextant::api {

namespace {

scheduler::Topology discover() {
  scheduler::Topology topology = scheduler::discover_topology();
#if SEXTANT_HAS_CUDA
  std::vector<scheduler::GpuInfo> gpus;
  for (const gpu::GpuInfo& g : gpu::all_devices())
    gpus.push_back({g.ordinal, scheduler::numa_node_of_pci_device(topology, g.pci_bus_id),
                    g.global_memory_bytes, g.name});
  scheduler::add_gpus(topology, std::move(gpus));
#endif
  return topology;
}

}  // namespace

scheduler::Topology machine() {
  // hwloc's discovery and the CUDA runtime's start take tens of milliseconds: once per process.
  static const scheduler::Topology discovered = discover();
  return discovered;
}

}  // namespace sextant::api
