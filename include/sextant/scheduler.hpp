// The heterogeneous scheduler: the machine's topology (hwloc), work-stealing runs of codelets over
// CPU cores, NUMA nodes and GPUs, device teams, faults, per-device statistics and counters.
#pragma once

#include "sextant/scheduler/counters.hpp"
#include "sextant/scheduler/faults.hpp"
#include "sextant/scheduler/policies.hpp"
#include "sextant/scheduler/run_options.hpp"
#include "sextant/scheduler/scheduler.hpp"
#include "sextant/scheduler/statistics.hpp"
#include "sextant/scheduler/team.hpp"
#include "sextant/scheduler/topology.hpp"
