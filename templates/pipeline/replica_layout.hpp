// One replica's plan as plain data that crosses to a GPU by value: the groups of the merge plan,
// each queue's capacity and place in the replica's queue arena, and each group's worst case per
// input (the product of its gain limits). Made from a merge plan and queue sizes on the host.
#pragma once

#include <cstddef>
#include <cstdint>

#include "templates/pipeline/merge_plan.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/sizing.hpp"

namespace sextant::pipeline {

struct ReplicaLayout {
  std::uint32_t nodes = 0;
  std::uint32_t width = 0;   // v: lanes per vector
  std::uint32_t groups = 0;  // groups of the merge plan
  std::uint32_t group_first[policy::max_nodes] = {};
  std::uint32_t group_last[policy::max_nodes] = {};
  std::uint32_t group_of[policy::max_nodes] = {};  // node -> its group
  // Per node i, for the queue after it (0 where node i ends no group, or for the last node):
  std::uint32_t capacity[policy::max_nodes] = {};  // items
  std::uint64_t offset[policy::max_nodes] = {};    // bytes into the arena, 16-byte aligned
  std::uint64_t bound[policy::max_nodes] = {};     // worst-case outputs per input of the group ending at i
  std::uint64_t arena_bytes = 0;                   // the queues, with alignment
  std::uint64_t queue_bytes = 0;                   // the queues' items alone (what the budget counts)
};

// Throws Error::internal when the plan, sizes and shape disagree; Error::argument when a queue
// holds more than 2^32 - 1 items.
ReplicaLayout make_layout(const PipelineShape& shape, const MergePlan& plan, std::uint32_t width,
                          const QueueSizes& sizes);

}  // namespace sextant::pipeline
