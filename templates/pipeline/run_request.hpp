// How a run is asked for, in the terms of the plan (sizing rule, budget, merge plan, measured gains),
// and the layout each kind of device derives from it for its vector width: a core's 8 or 16 lanes,
// a GPU block's 128 threads, so the minimum safe sizes differ per device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "templates/pipeline/merge_plan.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/profile.hpp"
#include "templates/pipeline/replica_layout.hpp"
#include "templates/pipeline/sizing.hpp"

namespace sextant::pipeline {

struct RunRequest {
  SizingRule sizing = SizingRule::sqrt;
  std::size_t queue_budget = 0;  // bytes per replica; 0 = the rule's default (sizing.hpp)
  MergePlan merge;               // resolved (the front door turns "auto" into a plan)
  std::vector<double> gains;     // g_i per node for the sqrt rule; empty = 1 for every node
  std::uint32_t cpu_lanes = 0;   // 0: the widest the cores run (16 with AVX-512, else 8)
  bool ordered = false;          // the sink's items in input order
  bool collect = true;           // keep the sink's items (false: count only)
  bool profile = false;          // per-node counters and times
};

// The CPU lanes a request resolves to: its cpu_lanes (8 or 16), else 16 where the cores run AVX-512
// (SEXTANT_SIMD allowing), else 8. Throws Error::argument for another width, Error::unsupported for 16
// without AVX-512.
std::uint32_t resolve_cpu_lanes(std::uint32_t requested);

// The queue sizes and layout of one replica of `width` lanes.
struct DeviceLayout {
  QueueSizes sizes;
  ReplicaLayout layout;
};

DeviceLayout plan_layout(const PipelineShape& shape, const RunRequest& request, std::uint32_t width);

// What a run returns: the sink's items (chunk after chunk, each in input order where the replica keeps
// order), their count, the counters of every replica, and the queue sizes each device kind used.
template <class Out>
struct RunOutcome {
  std::vector<Out> items;
  std::uint64_t count = 0;
  RunCounters counters;
  std::vector<std::pair<std::string, QueueSizes>> sizes;  // ("cpu 16 lanes", sizes), ("gpu 128 lanes", ...)
};

// "sqrt 65536 B: 4096 | 1024 | 512 items (3 queues, 65024 B)" and the like.
std::string describe_sizes(const QueueSizes& sizes);

}  // namespace sextant::pipeline
