// All of Sextant's public headers: every family and the build's configuration.
#pragma once

#include "sextant/core/config.hpp"
#include "sextant/datagen.hpp"
#include "sextant/pipeline.hpp"
#include "sextant/scheduler.hpp"
#include "sextant/skycube.hpp"
#include "sextant/window.hpp"
