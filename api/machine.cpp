#include "api/machine.hpp"

#include <utility>

#include "api/backends.hpp"

namespace sextant::api {

namespace {

scheduler::Topology discover() {
  scheduler::Topology topology = cpu_machine();
  scheduler::add_gpus(topology, backends::gpus(topology));
  return topology;
}

}  // namespace

scheduler::Topology cpu_machine() {
  static const scheduler::Topology discovered = scheduler::discover_topology();
  return discovered;
}

scheduler::Topology machine() {
  // hwloc's discovery and the CUDA runtime's start take tens of milliseconds: once per process.
  static const scheduler::Topology discovered = discover();
  return discovered;
}

scheduler::Topology machine_for(const DeviceSelection& devices) {
  return devices.wants_gpu() ? machine() : cpu_machine();
}

}  // namespace sextant::api
