// In the build tree a header is reachable both from the project root ("core/dataset.hpp") and as
// <sextant/core/dataset.hpp> (links under the build folder): both names are one file, so including
// both compiles (one definition), and so does the generated configuration under both names.
#include <sextant/core/config.hpp>
#include <sextant/core/dataset.hpp>

#include "core/config.hpp"
#include "core/dataset.hpp"

static_assert(sextant::build::version[0] != '\0');
