// Skycube runs through the heterogeneous scheduler (api/skycube.cpp routes every run here): which
// workers each template gets, and the run itself (on the build's backends, api/backends.hpp).
#pragma once

#include "api/skycube.hpp"
#include "core/dataset.hpp"
#include "scheduler/scheduler.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// The machine the run uses (DeviceOptions::machine or the discovered one) and the selection it
// names ("all" when only counters or faults were asked for). Throws Error for a GPU named where
// there is none (no CUDA in this build, no GPU on the machine).
struct DevicePlan {
  scheduler::Topology machine;
  DeviceSelection devices;
  bool uses_gpus = false;  // some GPU of the machine is selected
};
DevicePlan plan_devices(const DeviceOptions& options);

// The scheduler options a template runs under: STSC and MDMC one worker per core, SDSC one per
// NUMA node (its cuboid hook runs an OpenMP team on the node's cores); `threads` (0 = all) caps the
// CPU workers' cores; GPU host threads get a core of their own. Throws Error for a device set the
// template cannot use (STSC or the reference on a GPU, SDSC on GPUs alone without a GPU hook).
scheduler::SchedulerOptions scheduler_options(TemplateKind kind, const DevicePlan& plan, int threads,
                                              const DeviceOptions& options);

// The run: `kind` is stsc, sdsc or mdmc; max_level is resolved (1..d); threads as above.
SkycubeResult compute_on_devices(const Dataset& data, TemplateKind kind, int max_level, int threads,
                                 const DeviceOptions& options);

}  // namespace sextant::skycube
