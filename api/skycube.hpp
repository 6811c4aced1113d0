// The skycube family's front door: computes the skycube of a dataset with the chosen template
// on the chosen devices. `automatic` picks a template from n, d and the devices and says which
// in SkycubeResult::template_name.
#pragma once

#include <string_view>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

SkycubeResult compute_skycube(const Dataset& data, const SkycubeOptions& options,
                              const DeviceSelection& devices = {});

TemplateKind parse_template(const char* parameter, std::string_view text);
std::string_view to_string(TemplateKind kind) noexcept;

}  // namespace sextant::skycube
