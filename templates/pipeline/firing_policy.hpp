// The firing policy of a replica, shared by the CPU and GPU executors (on a GPU, thread 0 of the
// block decides and the block fires). It is AFIE ("active full, inactive empty", the scheduler
// Mercator uses, paper 003 Section 4.2):
//   * the source group is active while the chunk has inputs; any other group becomes active when
//     its input queue is full, i.e. its producer could no longer fire a worst-case vector into it;
//   * a group may fire when it is active and its successor is not, so its output queue has room
//     for the worst case of one vector (the successor would be active otherwise);
//   * it fires full vectors (v inputs) while it can, and a partial vector only when its producer
//     cannot add more (the input queue is full, or everything upstream is exhausted: the flush at
//     the end of a chunk); when it can do neither it becomes inactive;
//   * among the groups that may fire, the most downstream one fires.
// Hence a group keeps firing until its input runs dry or its output fills (an efficient schedule in
// the paper's sense: queues cycle between full and empty), and a switch happens only then. With every
// queue at least its minimum safe size (v x the group's worst case per input), the most downstream
// group holding items can always fire, so a replica never deadlocks and empties every queue at the
// end of its chunk.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/replica_layout.hpp"

namespace sextant::pipeline {

// Plain aggregates without member initialisers, so that a GPU block can keep them in shared memory;
// value-initialise them (ReplicaSchedule{}) to start empty.
struct QueueCursor {
  std::uint32_t head;   // index of the oldest item
  std::uint32_t count;  // items held
};

// A replica's scheduling state: the chunk's inputs not yet read and the queues' fill.
struct ReplicaSchedule {
  std::uint64_t source_next;             // index of the next source item
  std::uint64_t source_left;             // source items of the chunk not yet read
  QueueCursor queue[policy::max_nodes];  // the queue after node i
  bool active[policy::max_nodes];        // per group

  SEXTANT_HD void start_chunk(std::uint64_t begin, std::uint64_t end) {
    source_next = begin;
    source_left = end - begin;
  }
};

struct Firing {
  int group;           // -1: nothing left to fire
  std::uint32_t take;  // inputs consumed: v, or fewer for a partial vector
};

// Whether the producer of the queue after node `node` can no longer fire a worst-case vector into it.
SEXTANT_HD_INLINE bool queue_full(const ReplicaLayout& l, const ReplicaSchedule& s, std::uint32_t node) {
  const std::uint64_t free_items = l.capacity[node] - s.queue[node].count;
  return free_items < static_cast<std::uint64_t>(l.width) * l.bound[node];
}

SEXTANT_HD inline Firing choose_firing(const ReplicaLayout& l, ReplicaSchedule& s) {
  bool upstream_done[policy::max_nodes];
  bool upstream_empty = s.source_left == 0;
  s.active[0] = s.source_left > 0;
  upstream_done[0] = true;
  for (std::uint32_t g = 1; g < l.groups; ++g) {
    const std::uint32_t in = l.group_last[g - 1];
    const std::uint32_t held = s.queue[in].count;
    if (queue_full(l, s, in) || (upstream_empty && held > 0)) s.active[g] = true;
    upstream_done[g] = upstream_empty;
    upstream_empty = upstream_empty && held == 0;
  }
  for (int g = static_cast<int>(l.groups) - 1; g >= 0; --g) {
    if (!s.active[g]) continue;
    if (g + 1 < static_cast<int>(l.groups) && s.active[g + 1]) continue;
    std::uint64_t avail = 0;
    bool partial_ok = true;
    if (g == 0) {
      avail = s.source_left;
    } else {
      const std::uint32_t in = l.group_last[g - 1];
      avail = s.queue[in].count;
      partial_ok = upstream_done[g] || queue_full(l, s, in);
    }
    std::uint32_t take = 0;
    if (avail >= l.width)
      take = l.width;
    else if (avail > 0 && partial_ok)
      take = static_cast<std::uint32_t>(avail);
    if (take == 0) {
      s.active[g] = false;
      continue;
    }
    return Firing{g, take};
  }
  return Firing{-1, 0};
}

}  // namespace sextant::pipeline
