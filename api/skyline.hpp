// The skyline of one subspace, without a skycube: the points no other point dominates in the
// subspace's columns (DESIGN.md's semantics: smaller is better after the max columns' negation,
// exact duplicates never dominate each other, so every copy stays). The same ids as
// compute_skycube(...).cube.skyline(subspace), on every device.
//
//   sextant::Dataset data = sextant::datagen::read_csv("data/nba-8-17264.csv");
//   sextant::SkylineResult best = sextant::skyline(data, 0b101);   // columns {0, 2}
//   for (sextant::PointId id : best.ids) ...
//
// With no device named and fewer than policy::SkylineSplit::direct_max_points points, it runs on
// the calling thread (no scheduler to start); otherwise on the heterogeneous scheduler's workers
// like the other families: a CPU core group per NUMA node (an OpenMP team) and each GPU, with the
// cuboid hook variants the build registers (templates/skycube/skyline_devices.hpp).
//
// Thread safety: skyline() may run concurrently from several threads (each call has its own
// engine and, on the scheduler path, its own workers), on the same Dataset or others.
#pragma once

#include <memory>
#include <vector>

#include "api/skycube.hpp"
#include "core/dataset.hpp"
#include "core/stopwatch.hpp"
#include "core/subspace.hpp"

namespace sextant {

struct SkylineOptions {
  int threads = 0;  // CPU threads; 0 = every core
  // Devices (all | cpu | numaN | gpuN, parse_devices), counters, faults, machine: as for the
  // skycube. Naming any of them (devices, counters, faults) takes the scheduler path.
  skycube::DeviceOptions devices;
};

struct SkylineResult {
  std::vector<PointId> ids;  // ascending
  PhaseTimes phases;         // "skyline"
  // Per worker and device (scheduler/statistics.hpp), when the run went through the scheduler;
  // null on the calling-thread path.
  std::shared_ptr<const scheduler::Statistics> statistics;
};

// Throws Error::argument for an empty subspace or one naming a column the data lacks, threads < 0;
// Error::unsupported for a GPU this build or machine lacks.
SkylineResult skyline(const Dataset& data, Mask subspace, const SkylineOptions& options = {});

// Every column: skyline(data, full_mask(data.dims()), options).
SkylineResult skyline(const Dataset& data, const SkylineOptions& options = {});

}  // namespace sextant
