#include "api/skycube.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/backends.hpp"
#include "api/skycube_devices.hpp"
#include "core/error.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube {

TemplateKind parse_template(const char* parameter, std::string_view text) {
  if (text == "reference") return TemplateKind::reference;
  if (text == "stsc") return TemplateKind::stsc;
  if (text == "sdsc") return TemplateKind::sdsc;
  if (text == "mdmc") return TemplateKind::mdmc;
  if (text == "auto") return TemplateKind::automatic;
  throw Error::argument(parameter, text, "reference, stsc, sdsc, mdmc or auto", "unknown template");
}

std::string_view to_string(TemplateKind kind) noexcept {
  switch (kind) {
    case TemplateKind::reference: return "reference";
    case TemplateKind::stsc: return "stsc";
    case TemplateKind::sdsc: return "sdsc";
    case TemplateKind::mdmc: return "mdmc";
    case TemplateKind::automatic: return "auto";
  }
  return "?";
}

namespace {

// True when at least half the columns repeat their values heavily in a sample of rows spread over
// the dataset (policy::TemplateChoice).
bool ties_heavily(const Dataset& data) {
  using Choice = policy::TemplateChoice;
  const std::size_t n = data.size();
  const std::size_t rows = std::min(n, Choice::tie_sample_rows);
  if (rows < 2) return false;
  std::vector<float> column(rows);
  int tied = 0;
  for (int j = 0; j < data.dims(); ++j) {
    for (std::size_t k = 0; k < rows; ++k)
      column[k] = data(static_cast<PointId>(k * (n - 1) / (rows - 1)), j);
    std::sort(column.begin(), column.end());
    const auto distinct =
        static_cast<std::size_t>(std::unique(column.begin(), column.end()) - column.begin());
    if (static_cast<double>(distinct) <= Choice::tie_distinct_share * static_cast<double>(rows)) ++tied;
  }
  return 2 * tied >= data.dims();
}

// Measured on the CPU (docs/PERFORMANCE.md): STSC is fastest at small d (its cuboids are cheap and
// few), MDMC when d is large and most levels are asked for, and from fewer columns on tie-heavy
// data; a shallow partial cube favours the lattice traversal, which stops early. With GPUs in the
// run, MDMC: its point chunks keep every device busy to the end.
TemplateKind choose_template(const Dataset& data, int max_level, bool uses_gpus) {
  using Choice = policy::TemplateChoice;
  if (uses_gpus) return TemplateKind::mdmc;
  const bool deep = max_level >= std::min(data.dims(), Choice::deep_level);
  if (!deep) return TemplateKind::stsc;
  if (data.dims() >= Choice::mdmc_min_dims) return TemplateKind::mdmc;
  return data.dims() >= Choice::tie_mdmc_min_dims && ties_heavily(data) ? TemplateKind::mdmc
                                                                        : TemplateKind::stsc;
}

}  // namespace

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options, const DeviceSelection& devices) {
  DeviceOptions on;
  on.devices = devices;
  return compute_skycube(data, options, on);
}

// The one path of every run: the options resolved once, the devices planned, the template chosen,
// then the scheduler's workers. Without devices named, the devices are the CPU's cores.
SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options,
                              const DeviceOptions& devices) {
  const ResolvedOptions resolved = resolve_options(data, options);
  DeviceOptions on = devices;
  if (!on.devices.all && on.devices.devices.empty())
    on.devices.devices.push_back(DeviceId{DeviceKind::cpu, -1});
  TemplateKind kind = options.kind;
  if (kind == TemplateKind::reference) {
    for (const DeviceId& d : on.devices.devices)
      if (d.kind == DeviceKind::gpu)
        throw Error::unsupported("the reference skycube runs on the CPU only, not on " + to_string(d) +
                                 "; name CPU devices or none");
    return backends::reference_skycube(data, resolved.max_level, resolved.threads);
  }
  if (kind == TemplateKind::automatic)
    kind = choose_template(data, resolved.max_level, plan_devices(on).uses_gpus);
  return compute_on_devices(data, kind, resolved.max_level, options.threads, on);
}

}  // namespace sextant::skycube
