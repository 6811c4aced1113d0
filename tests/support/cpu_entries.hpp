// The skycube templates on the CPU's cores, through the one front door (api/skycube.hpp): what the
// template tests run for "the template on this machine's CPU".
#pragma once

#include "api/skycube.hpp"

namespace sextant::testing {

inline skycube::SkycubeResult on_cpu(skycube::TemplateKind kind, const Dataset& data,
                                     skycube::SkycubeOptions options) {
  options.kind = kind;
  return skycube::compute_skycube(data, options);
}
inline skycube::SkycubeResult stsc_on_cpu(const Dataset& data, const skycube::SkycubeOptions& options) {
  return on_cpu(skycube::TemplateKind::stsc, data, options);
}
inline skycube::SkycubeResult sdsc_on_cpu(const Dataset& data, const skycube::SkycubeOptions& options) {
  return on_cpu(skycube::TemplateKind::sdsc, data, options);
}
inline skycube::SkycubeResult mdmc_on_cpu(const Dataset& data, const skycube::SkycubeOptions& options = {}) {
  return on_cpu(skycube::TemplateKind::mdmc, data, options);
}

}  // namespace sextant::testing
