// What a skycube run is asked to do and what it reports back.
#pragma once

#include <cstddef>
#include <string>

#include "core/stopwatch.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::skycube {

enum class TemplateKind { reference, stsc, sdsc, mdmc, automatic };

struct SkycubeOptions {
  TemplateKind kind = TemplateKind::automatic;
  int max_level = 0;  // 0 = d (the full skycube); else subspaces of level <= max_level only
  int threads = 0;    // CPU threads; 0 = every core
};

struct SkycubeResult {
  HashCube cube;
  std::string template_name;          // what ran (after `auto` chose)
  std::size_t extended_skyline_size = 0;
  PhaseTimes phases;
};

}  // namespace sextant::skycube
