// The stream mode of `sextant window` (paper 000): time or count windows over an out-of-order
// keyed stream, from a stream CSV or generated.
#pragma once

#include <vector>

#include "cli/arguments.hpp"

namespace sextant::cli {

// The options only the stream mode reads (the shared ones are declared by window_command).
std::vector<Arguments::Option> window_stream_options();
// Names of those options, for the --inplace mode to refuse them.
std::vector<const char*> window_stream_only_options();

int window_stream(const Arguments& args);

}  // namespace sextant::cli
