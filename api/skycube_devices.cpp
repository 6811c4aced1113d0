#include "api/skycube_devices.hpp"

#include <algorithm>
#include <string>

#include "api/backends.hpp"
#include "api/machine.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube {

namespace {

// The selection with the GPUs left out ("all" becomes "cpu").
DeviceSelection without_gpus(const DeviceSelection& devices) {
  if (devices.all) return DeviceSelection{false, {DeviceId{DeviceKind::cpu, -1}}};
  DeviceSelection out;
  for (const DeviceId& d : devices.devices)
    if (d.kind == DeviceKind::cpu) out.devices.push_back(d);
  return out;
}

}  // namespace

DevicePlan plan_devices(const DeviceOptions& options) {
  DevicePlan plan;
  plan.devices = options.devices;
  if (!plan.devices.all && plan.devices.devices.empty()) plan.devices.all = true;
  plan.machine = options.machine ? *options.machine : api::machine_for(plan.devices);
  if (plan.machine.gpu_count() == 0 && plan.devices.names_gpu()) {
    const auto gpu = std::find_if(plan.devices.devices.begin(), plan.devices.devices.end(),
                                  [](const DeviceId& d) { return d.kind == DeviceKind::gpu; });
    const std::string why = !build::has_cuda && !options.machine ? "this build of Sextant has no CUDA support"
                                                                 : "no GPU found on this machine";
    throw Error::unsupported("cannot run on GPU " + to_string(*gpu) + ": " + why +
                             "; name CPU devices instead (all, cpu or numaN)");
  }
  plan.uses_gpus = plan.machine.gpu_count() > 0 && plan.devices.wants_gpu();
  return plan;
}

scheduler::SchedulerOptions scheduler_options(TemplateKind kind, const DevicePlan& plan, int threads,
                                              const DeviceOptions& options) {
  scheduler::SchedulerOptions o;
  o.layout.devices = plan.devices;
  o.layout.cpu_cores = threads;
  o.layout.gpu_own_core = true;
  o.counter_events = options.counters;
  o.faults = options.faults;
  switch (kind) {
    case TemplateKind::stsc:
      for (const DeviceId& d : plan.devices.devices)
        if (d.kind == DeviceKind::gpu)
          throw Error::unsupported("the stsc template cannot run on " + to_string(d) +
                                   ": it runs single-threaded cuboids on CPU cores only; name CPU devices "
                                   "(all, cpu or numaN) or use the mdmc template for GPUs");
      o.layout.devices = without_gpus(plan.devices);
      break;
    case TemplateKind::sdsc:
      o.layout.cpu = scheduler::CpuWorkers::per_group;
      o.layout.cores_per_group = 0;  // a NUMA node per worker: one OpenMP team per node
      o.layout.gpu_workers = policy::DeviceLayout::sdsc_workers_per_gpu;
      break;
    case TemplateKind::mdmc:
      o.layout.gpu_cores = policy::DeviceLayout::mdmc_cores_per_gpu;
      o.layout.gpu_spare_cores = policy::DeviceLayout::mdmc_spare_cores_to_gpus;
      break;
    case TemplateKind::reference:
    case TemplateKind::automatic:
      throw Error::internal("scheduler_options: no device layout for this template");
  }
  if (options.gpu_cores < 0)
    throw Error::argument("gpu cores", std::to_string(options.gpu_cores), ">= 0 (0 = the template's choice)");
  if (options.gpu_cores > 0) {  // exactly that many: no spare cores on top
    o.layout.gpu_cores = options.gpu_cores;
    o.layout.gpu_spare_cores = false;
  }
  return o;
}

SkycubeResult compute_on_devices(const Dataset& data, TemplateKind kind, int max_level, int threads,
                                 const DeviceOptions& options) {
  const DevicePlan plan = plan_devices(options);
  scheduler::Scheduler s(plan.machine, scheduler_options(kind, plan, threads, options));
  SkycubeResult result = backends::skycube_on_scheduler(data, kind, max_level, s);
  result.statistics = std::make_shared<const scheduler::Statistics>(s.statistics());
  return result;
}

}  // namespace sextant::skycube
