// What api/ asks of the build's backends. api/ chooses (templates, devices, options); the backends
// implement these beside their own code, and CMake builds one set: the CPU-only one
// (cpu/cpu_backends.cpp) or, when CUDA is on, the CPU + GPU one (gpu/gpu_backends.cpp).
#pragma once

#include <vector>

#include "core/dataset.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/topology.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::backends {

// The GPUs of this machine that the build can drive (none without CUDA).
std::vector<scheduler::GpuInfo> gpus(const scheduler::Topology& machine);

// A skycube template (stsc, sdsc or mdmc; max_level 1..d) on the scheduler's workers, with every
// hook variant the build registers for their devices.
skycube::SkycubeResult skycube_on_scheduler(const Dataset& data, skycube::TemplateKind kind, int max_level,
                                            scheduler::Scheduler& s);

}  // namespace sextant::backends
