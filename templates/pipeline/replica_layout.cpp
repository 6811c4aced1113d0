#include "templates/pipeline/replica_layout.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "templates/pipeline/saturating.hpp"

namespace sextant::pipeline {

ReplicaLayout make_layout(const PipelineShape& shape, const MergePlan& plan, std::uint32_t width,
                          const QueueSizes& sizes) {
  if (plan.nodes() != shape.size() || shape.size() > policy::max_nodes || width == 0)
    throw Error::internal("make_layout: plan, pipeline and width disagree");
  ReplicaLayout l;
  l.nodes = static_cast<std::uint32_t>(shape.size());
  l.width = width;
  const auto groups = plan.groups();
  l.groups = static_cast<std::uint32_t>(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    l.group_first[g] = static_cast<std::uint32_t>(groups[g].first);
    l.group_last[g] = static_cast<std::uint32_t>(groups[g].last);
    std::uint64_t bound = 1;
    for (std::size_t i = groups[g].first; i <= groups[g].last; ++i) {
      l.group_of[i] = static_cast<std::uint32_t>(g);
      bound = std::min(detail::saturating_mul(bound, shape.gain_limits[i]), std::uint64_t{1} << 40);
    }
    l.bound[groups[g].last] = bound;
  }
  if (sizes.queues.size() + 1 != groups.size())
    throw Error::internal("make_layout: " + std::to_string(sizes.queues.size()) + " queue sizes for " +
                          std::to_string(groups.size()) + " groups");
  std::uint64_t offset = 0;
  for (std::size_t q = 0; q < sizes.queues.size(); ++q) {
    const QueueSpec& spec = sizes.queues[q];
    if (spec.after != groups[q].last) throw Error::internal("make_layout: queue sizes for another plan");
    if (sizes.capacity[q] > std::numeric_limits<std::uint32_t>::max())
      throw Error::argument("queue capacity", std::to_string(sizes.capacity[q]), "< 2^32 items",
                            "the queue after node " + std::to_string(spec.after + 1) + " is too large");
    if (sizes.capacity[q] < spec.min_items)
      throw Error::internal("make_layout: a queue below its minimum safe size");
    l.capacity[spec.after] = static_cast<std::uint32_t>(sizes.capacity[q]);
    l.offset[spec.after] = offset;
    const std::uint64_t bytes = sizes.capacity[q] * shape.output_bytes[spec.after];
    l.queue_bytes += bytes;
    offset += (bytes + 15) / 16 * 16;
  }
  l.arena_bytes = offset;
  return l;
}

}  // namespace sextant::pipeline
