// What api/ asks of the build's backends. api/ chooses (templates, devices, options); the backends
// implement these beside their own code, and CMake builds one set: the CPU-only one
// (cpu/cpu_backends.cpp) or, when CUDA is on, the CPU + GPU one (gpu/gpu_backends.cpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/matcher_engine.hpp"
#include "core/dataset.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "scheduler/topology.hpp"
#include "templates/pipeline/run_request.hpp"
#include "templates/pipeline/run_spec.hpp"
#include "templates/skycube/skycube_options.hpp"
#include "templates/window/count_window_hooks.hpp"
#include "templates/window/count_window_planner.hpp"

namespace sextant::backends {

// The GPUs of this machine that the build can drive (none without CUDA), and how many.
std::vector<scheduler::GpuInfo> gpus(const scheduler::Topology& machine);
int gpu_count() noexcept;

// A skycube template (stsc, sdsc or mdmc; max_level 1..d) on the scheduler's workers, with every
// hook variant the build registers for their devices.
skycube::SkycubeResult skycube_on_scheduler(const Dataset& data, skycube::TemplateKind kind, int max_level,
                                            scheduler::Scheduler& s);

// One subspace's skyline (ids ascending) on the scheduler's workers, with every parallel cuboid
// variant the build registers for their devices (templates/skycube/skyline_devices.hpp).
std::vector<PointId> skyline_on_scheduler(const Dataset& data, Mask subspace, scheduler::Scheduler& s);

// The same on the calling thread with the best CPU variant allowed here, for inputs too small to
// start a scheduler for. Every build has it (cpu/skycube/skyline_backend.cpp).
std::vector<PointId> skyline_here(const Dataset& data, Mask subspace);

// The brute-force reference skycube on the CPU (and, for the summary, the extended skyline's size
// on `threads` threads). Every build has it (cpu/skycube/reference_backend.cpp).
skycube::SkycubeResult reference_skycube(const Dataset& data, int max_level, int threads);

// Count windows on the CPU workers of team(), host columns, every registered CPU variant (the
// scheduler keeps the fastest per worker); a short column runs on the calling thread and never asks
// for the team. Returns what ran, e.g. "cpu (avx512 100.0%)". Every build has it
// (cpu/window/count_window_backend.cpp).
std::string count_window_on_cpu(const window::CountWindowArgs& args,
                                const std::function<scheduler::SchedulerTeam&()>& team);

// Count windows on GPU `ordinal` (0 .. gpu_count() - 1): host columns in and out, or columns in
// the GPU's memory (on a CUDA stream, nullptr = the default stream). A build without CUDA throws
// Error::unsupported.
window::CountPlan count_window_on_gpu(int ordinal, const window::CountWindowArgs& host_args,
                                      window::CountAlgorithm algorithm);
window::CountPlan count_window_in_gpu_memory(int ordinal, const window::CountWindowArgs& args,
                                             window::CountAlgorithm algorithm, void* stream);

// The matching engine (api/matcher_engine.hpp) on the workers of `machine` that options.devices
// selects: the CPU hook variants on every core, the GPU hook on every GPU where the build has one
// (cpu/matching/matching_backend_cpu.cpp refuses GPUs without CUDA, exit 4).
std::unique_ptr<matching::detail::MatchEngine> make_match_engine(const scheduler::Topology& machine,
                                                                 const matching::MatcherOptions& options);

// The stream-window operators of each backend (api/stream_window_engine.hpp declares their
// factories): the CPU's in cpu/window/stream_engine_cpu_*.cpp, the GPU's in
// gpu/window/stream_engine_gpu.cpp or refusing in cpu/cpu_backends.cpp.

// A pipeline on the scheduler's workers: CPU replicas, and in a build with CUDA a GPU's block
// replicas on its workers. Instantiated for the applications of apps/pipelines
// (cpu/pipeline/pipeline_backends_cpu.cpp or gpu/pipeline/pipeline_backends_gpu.cpp).
template <class P>
pipeline::RunOutcome<typename P::Output> pipeline_on_scheduler(const pipeline::Instance<P>& instance,
                                                               const pipeline::RunRequest& request,
                                                               scheduler::Scheduler& s);

}  // namespace sextant::backends
