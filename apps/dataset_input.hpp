// The dataset of `skycube` and `skyline`: --input F or --generate DIST:N:D[:SEED], with --prefer
// applied; the time goes to `phases` as "load" or "generate".
#pragma once

#include "cli/arguments.hpp"
#include "core/dataset.hpp"
#include "core/stopwatch.hpp"

namespace sextant::cli {

Dataset load_dataset(const Arguments& args, PhaseTimes& phases);

}  // namespace sextant::cli
