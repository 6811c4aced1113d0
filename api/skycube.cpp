#include "api/skycube.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "api/skycube_devices.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/lattice_skycube_cpu.hpp"
#include "cpu/skycube/mdmc_skycube_cpu.hpp"
#include "cpu/skycube/reference_skycube.hpp"

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

SkycubeResult named(SkycubeResult r, const char* name) {
  r.template_name = name;
  return r;
}

// Measured on the CPU (docs/PERFORMANCE.md): STSC is fastest at d <= 8 (its cuboids are cheap
// and few), MDMC from d = 10 on when most levels are asked for (3-12x faster than STSC at d = 12);
// a shallow partial cube favours the lattice traversal, which stops early.
TemplateKind choose_template(const Dataset& data, const SkycubeOptions& options) {
  const bool deep = options.max_level >= std::min(data.dims(), 6);
  return data.dims() >= 10 && deep ? TemplateKind::mdmc : TemplateKind::stsc;
}

}  // namespace

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options, const DeviceSelection& devices) {
  DeviceOptions on;
  on.devices = devices;
  return compute_skycube(data, options, on);
}

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options,
                              const DeviceOptions& devices) {
  SkycubeOptions opts = options;
  const auto resolved = resolve_options(data, options);
  opts.max_level = resolved.max_level;
  opts.threads = resolved.threads;

  if (devices.scheduled()) {
    const auto& listed = devices.devices.devices;
    const auto gpu =
        std::find_if(listed.begin(), listed.end(), [](const DeviceId& d) { return d.kind == DeviceKind::gpu; });
    if (opts.kind == TemplateKind::reference && gpu != listed.end())
      throw Error::unsupported("the reference skycube runs on the CPU only, not on " + to_string(*gpu) +
                               "; name CPU devices or none");
    if (opts.kind != TemplateKind::reference) {
      // With GPUs in the run, MDMC: its point chunks keep every device busy to the end.
      if (opts.kind == TemplateKind::automatic)
        opts.kind = plan_devices(devices).uses_gpus ? TemplateKind::mdmc : choose_template(data, opts);
      return compute_on_devices(data, opts.kind, opts.max_level, options.threads, devices);
    }
  }
  if (opts.kind == TemplateKind::automatic) opts.kind = choose_template(data, opts);
  switch (opts.kind) {
    case TemplateKind::reference: {
      SkycubeResult result;
      Stopwatch sw;
      // Only for the summary: the reference itself does not use the extended skyline.
      result.extended_skyline_size = cpu::ExtendedSkylineCpu{opts.threads}.extended_skyline(data).size();
      result.phases.add("extended skyline", sw.seconds());
      sw.restart();
      result.cube = reference_skycube(data, opts.max_level);
      result.phases.add("reference skycube", sw.seconds());
      result.template_name = "reference";
      return result;
    }
    case TemplateKind::stsc: return named(stsc_cpu(data, opts), "stsc");
    case TemplateKind::sdsc: return named(sdsc_cpu(data, opts), "sdsc");
    case TemplateKind::mdmc:
    case TemplateKind::automatic: return named(mdmc_cpu(data, opts), "mdmc");
  }
  throw Error::internal("unhandled template kind");
}

}  // namespace sextant::skycube
