#include "api/skycube.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/lattice_skycube_cpu.hpp"
#include "cpu/skycube/mdmc_skycube_cpu.hpp"
#include "cpu/skycube/reference_skycube.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/device_query.hpp"
#include "gpu/skycube/mdmc_skycube_gpu.hpp"
#endif

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

std::string devices_to_string(const DeviceSelection& devices) {
  std::string out;
  for (const auto& d : devices.devices) out += (out.empty() ? "" : ",") + to_string(d);
  return out;
}

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

// The one GPU named by an explicit device list, if any. Until the heterogeneous scheduler is
// wired into the skycube templates, a run uses either the CPU or one GPU; "all" means the CPU.
std::optional<int> single_gpu(const DeviceSelection& devices) {
  if (devices.all || !devices.wants_gpu()) return std::nullopt;
  if (devices.devices.size() != 1)
    throw Error::unsupported("a skycube run on several devices at once ('" + devices_to_string(devices) +
                             "') needs the heterogeneous scheduler, not yet wired in; name one device");
  if (!build::has_cuda)
    throw Error::unsupported("this build of Sextant has no CUDA support, so it cannot run on a GPU; use --devices cpu");
  return devices.devices.front().index;
}

SkycubeResult run_on_gpu(const Dataset& data, const SkycubeOptions& opts, int gpu) {
#if SEXTANT_HAS_CUDA
  if (gpu::device_count() == 0) throw Error::unsupported("no GPU found on this machine; use --devices cpu");
  switch (opts.kind) {
    case TemplateKind::mdmc:
    case TemplateKind::automatic: return named(mdmc_gpu(data, opts, gpu), "mdmc");
    case TemplateKind::stsc:
      throw Error::unsupported("STSC has no GPU specialisation (a GPU has no single-threaded skyline); use mdmc");
    case TemplateKind::sdsc: throw Error::unsupported("the SDSC GPU cuboid hook is not implemented yet; use mdmc");
    case TemplateKind::reference: throw Error::unsupported("the reference skycube runs on the CPU only");
  }
  throw Error::internal("unhandled template kind");
#else
  (void)data, (void)opts, (void)gpu;
  throw Error::internal("GPU requested in a build without CUDA");
#endif
}

}  // namespace

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options, const DeviceSelection& devices) {
  SkycubeOptions opts = options;
  const auto resolved = resolve_options(data, options);
  opts.max_level = resolved.max_level;
  opts.threads = resolved.threads;

  if (opts.kind == TemplateKind::automatic) opts.kind = choose_template(data, opts);
  if (const auto gpu = single_gpu(devices)) return run_on_gpu(data, opts, *gpu);
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
