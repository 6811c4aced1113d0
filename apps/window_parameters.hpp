// The --length/--slide lists of `sextant window` (stream mode).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sextant::cli {

// "1000,5000": integers in 1 .. window::WindowSpec::max_parameter; throws Error::argument
// naming `option` (e.g. "--length") and the valid range.
std::vector<std::int64_t> parse_window_parameters(const std::string& option, const std::string& text);

}  // namespace sextant::cli
