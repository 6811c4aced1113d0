// All of Sextant's public headers: every family and the build's configuration.
#pragma once

#include "sextant/core/atomic_file.hpp"  // all-or-nothing output files
#include "sextant/core/config.hpp"
#include "sextant/datagen.hpp"
#include "sextant/matching.hpp"
#include "sextant/pipeline.hpp"
#include "sextant/scheduler.hpp"
#include "sextant/skycube.hpp"
#include "sextant/window.hpp"
