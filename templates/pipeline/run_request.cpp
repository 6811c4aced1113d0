#include "templates/pipeline/run_request.hpp"

#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "templates/pipeline/pipeline_policy.hpp"

namespace sextant::pipeline {

std::uint32_t resolve_cpu_lanes(std::uint32_t requested) {
  const bool avx512 = simd_level() >= SimdLevel::avx512;
  if (requested == 0) return avx512 ? policy::cpu_lanes_avx512 : policy::cpu_lanes_avx2;
  if (requested != policy::cpu_lanes_avx2 && requested != policy::cpu_lanes_avx512)
    throw Error::argument("--lanes", std::to_string(requested), "8 (AVX2) or 16 (AVX-512)");
  if (requested == policy::cpu_lanes_avx512 && !avx512)
    throw Error::unsupported(
        "16 CPU lanes need AVX-512, which this CPU (or SEXTANT_SIMD) does not allow; use --lanes 8");
  return requested;
}

DeviceLayout plan_layout(const PipelineShape& shape, const RunRequest& request, std::uint32_t width) {
  const MergePlan plan = request.merge.nodes() == 0 ? MergePlan::unmerged(shape.size()) : request.merge;
  if (plan.nodes() != shape.size())
    throw Error::internal("plan_layout: a merge plan of " + std::to_string(plan.nodes()) + " nodes for " +
                          std::to_string(shape.size()));
  DeviceLayout out;
  out.sizes = size_queues(request.sizing, request.queue_budget,
                          queue_specs(shape, plan, width, request.gains), width);
  out.layout = make_layout(shape, plan, width, out.sizes);
  return out;
}

std::string describe_sizes(const QueueSizes& sizes) {
  std::string out = std::string(to_string(sizes.rule)) + " " + std::to_string(sizes.budget) + " B:";
  if (sizes.queues.empty()) return out + " no queues";
  for (std::size_t q = 0; q < sizes.queues.size(); ++q) {
    out += (q == 0 ? " " : " | ") + std::to_string(sizes.capacity[q]);
    if (sizes.inflated[q]) out += "*";
  }
  out +=
      " items (" + std::to_string(sizes.queues.size()) + " queues, " + std::to_string(sizes.bytes()) + " B";
  bool any = false;
  for (const bool b : sizes.inflated) any = any || b;
  if (any) out += "; * raised to the minimum safe size";
  return out + ")";
}

}  // namespace sextant::pipeline
