// The skycube family's front door: computes the skycube of a dataset with the chosen template
// on the chosen devices. `automatic` picks a template from n, d and the devices and says which
// in SkycubeResult::template_name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "scheduler/faults.hpp"
#include "scheduler/topology.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// Where a run executes. Every run goes through the heterogeneous scheduler: STSC's cuboids on the
// CPU cores, SDSC's cuboids on the NUMA nodes (one OpenMP team each) and GPUs, MDMC's point chunks
// on every core and GPU; SkycubeResult::statistics holds the per-device report (the reference,
// a brute force on the CPU, has none). With no device named, the devices are the CPU's cores.
// SkycubeOptions::threads caps the CPU workers, spread over the named NUMA nodes.
struct DeviceOptions {
  DeviceSelection devices;            // all | cpu | numaN,... | gpuN,... (parse_devices)
  std::vector<std::string> counters;  // PAPI events on every CPU worker (scheduler::parse_counter_events);
                                      // where PAPI has none, statistics say "counters unavailable"
  scheduler::FaultInjection faults;   // tests and demonstrations: "numa1@2" fails a device's 2nd task
  std::optional<scheduler::Topology> machine;  // default: this machine (hwloc + CUDA); tests: synthetic
  // Cores each GPU's host worker owns (taken from the CPU workers where none is free); 0: the
  // template's choice (MDMC: mdmc_cores_per_gpu, for its HashCube insertion, plus the cores no
  // CPU worker got, such as every other core under `--devices gpu0`; others: one).
  int gpu_cores = 0;
};

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options,
                              const DeviceSelection& devices = {});
SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options,
                              const DeviceOptions& devices);

TemplateKind parse_template(const char* parameter, std::string_view text);
std::string_view to_string(TemplateKind kind) noexcept;

}  // namespace sextant::skycube
