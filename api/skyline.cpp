#include "api/skyline.hpp"

#include <string>

#include "api/backends.hpp"
#include "api/skycube_devices.hpp"
#include "core/error.hpp"
#include "scheduler/statistics.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant {

namespace {

std::string mask_text(Mask m) {
  std::string out;
  for (int j = 0; j < max_columns; ++j)
    if ((m >> j & 1u) != 0) out += (out.empty() ? "" : ",") + std::to_string(j);
  return out;
}

bool names_anything(const skycube::DeviceOptions& on) {
  return on.devices.all || !on.devices.devices.empty() || !on.counters.empty() || !on.faults.rules.empty() ||
         on.machine.has_value();
}

}  // namespace

SkylineResult skyline(const Dataset& data, Mask subspace, const SkylineOptions& options) {
  if (subspace == 0)
    throw Error::argument("subspace", "0", "a non-empty set of columns", "the empty subspace has no skyline");
  if (!is_submask(subspace, full_mask(data.dims())))
    throw Error::argument("subspace", "columns " + mask_text(subspace),
                          "columns 0.." + std::to_string(data.dims() - 1), "the data has fewer columns");
  if (options.threads < 0)
    throw Error::argument("threads", std::to_string(options.threads), "0 (every core) or more");

  SkylineResult result;
  Stopwatch sw;
  if (!names_anything(options.devices) && data.size() < skycube::policy::SkylineSplit::direct_max_points) {
    result.ids = backends::skyline_here(data, subspace);
  } else {
    skycube::DeviceOptions on = options.devices;
    if (!on.devices.all && on.devices.devices.empty())
      on.devices.devices.push_back(DeviceId{DeviceKind::cpu, -1});
    const skycube::DevicePlan plan = skycube::plan_devices(on);
    // SDSC's layout: a worker per NUMA node (its cuboid hook runs an OpenMP team there) and per GPU.
    scheduler::Scheduler s(
        plan.machine, skycube::scheduler_options(skycube::TemplateKind::sdsc, plan, options.threads, on));
    result.ids = backends::skyline_on_scheduler(data, subspace, s);
    result.statistics = std::make_shared<const scheduler::Statistics>(s.statistics());
  }
  result.phases.add("skyline", sw.seconds());
  return result;
}

SkylineResult skyline(const Dataset& data, const SkylineOptions& options) {
  return skyline(data, full_mask(data.dims()), options);
}

}  // namespace sextant
