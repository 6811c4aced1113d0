// What a skycube run is asked to do and what it reports back.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/dataset.hpp"
#include "core/stopwatch.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::scheduler {
struct Statistics;  // scheduler/statistics.hpp; templates only carry it
}  // namespace sextant::scheduler

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
  // GPU time inside those phases (e.g. "lattice: gpu kernels", "... gpu upload"), measured with
  // CUDA events: a breakdown, not part of phases.total(). Empty for CPU-only runs.
  PhaseTimes device_times;
  // Per worker and device: tasks, items, busy time, share, failures, counters — set when the run
  // went through the scheduler (devices named), null otherwise. Include scheduler/statistics.hpp
  // to read it; scheduler::report(*statistics) formats the per-device table.
  std::shared_ptr<const scheduler::Statistics> statistics;
};

}  // namespace sextant::skycube

namespace sextant::skycube {

// Options with the defaults made concrete: max_level 1..d, threads >= 1.
struct ResolvedOptions {
  int max_level = 0;
  int threads = 1;
};

// Checks a request every entry point accepts the same way (d <= max_skycube_columns,
// 0 <= max_level <= d, threads >= 0) and resolves max_level 0 to d and threads 0 to every core.
// Throws Error naming the parameter and its valid range.
ResolvedOptions resolve_options(const Dataset& data, const SkycubeOptions& options);

}  // namespace sextant::skycube
