// The machine a scheduled run uses: hwloc's topology (NUMA nodes, cores) and, in a build with CUDA,
// every GPU the runtime sees with its memory and NUMA node. Discovered once per process.
#pragma once

#include "core/device.hpp"
#include "scheduler/topology.hpp"

namespace sextant::api {

// The discovered machine (cached; a copy). No GPUs in a build without CUDA or without a driver.
scheduler::Topology machine();
// Its NUMA nodes and cores alone (cached; a copy): never starts the CUDA runtime.
scheduler::Topology cpu_machine();
// What a run on `devices` needs: machine() when the selection may use a GPU (all, gpuN), else
// cpu_machine(), so a CPU-only run never pays for the CUDA runtime's start.
scheduler::Topology machine_for(const DeviceSelection& devices);

}  // namespace sextant::api
