#include "api/skycube.hpp"

#include <string>

#include "core/error.hpp"
#include "core/stopwatch.hpp"
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

void validate(const Dataset& data, const SkycubeOptions& options) {
  if (data.dims() > max_skycube_columns)
    throw Error::argument("d", std::to_string(data.dims()), "1.." + std::to_string(max_skycube_columns),
                          "a skycube has 2^d - 1 subspaces; too many columns");
  if (options.max_level < 0 || options.max_level > data.dims())
    throw Error::argument("--max-level", std::to_string(options.max_level), "1.." + std::to_string(data.dims()),
                          "out of range");
  if (options.threads < 0)
    throw Error::argument("--threads", std::to_string(options.threads), "0 (all cores) or more", "out of range");
}

}  // namespace

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options, const DeviceSelection& devices) {
  validate(data, options);
  if (devices.wants_gpu() && !devices.all)
    throw Error::unsupported("the GPU skycube specialisations are not available yet; use --devices cpu");
  SkycubeOptions opts = options;
  if (opts.max_level == 0) opts.max_level = data.dims();

  SkycubeResult result;
  switch (opts.kind) {
    case TemplateKind::reference: {
      Stopwatch sw;
      result.cube = reference_skycube(data, opts.max_level);
      result.phases.add("reference skycube", sw.seconds());
      result.template_name = "reference";
      return result;
    }
    default:
      throw Error::unsupported("template '" + std::string(to_string(opts.kind)) +
                               "' is not yet available in this build; use --template reference");
  }
}

}  // namespace sextant::skycube
