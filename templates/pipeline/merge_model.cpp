#include "templates/pipeline/merge_model.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <limits>

#include "core/error.hpp"
#include "templates/pipeline/saturating.hpp"
#include "templates/pipeline/sizing.hpp"

namespace sextant::pipeline {

std::vector<NodeModel> node_models(const PipelineProfile& profile) {
  std::vector<NodeModel> out;
  for (const NodeProfile& n : profile.nodes) out.push_back({n.g, n.m, n.t, n.p});
  return out;
}

double predicted_cost(std::span<const NodeModel> nodes, const MergePlan& plan, bool lockstep) {
  if (plan.nodes() != nodes.size())
    throw Error::internal("predicted_cost: a plan of " + std::to_string(plan.nodes()) + " nodes for " +
                          std::to_string(nodes.size()));
  double cost = 0;
  double reach = 1;  // G_{1,j-1}: vectors reaching the group per input vector of n_1
  for (const NodeGroup& group : plan.groups()) {
    double service = 0;
    double lanes = 1;  // M_{j,i-1}
    double gain = reach;
    for (std::size_t i = group.first; i <= group.last; ++i) {
      service += lanes * nodes[i].t;
      lanes *= lockstep ? nodes[i].m : nodes[i].g;
      gain *= nodes[i].g;
    }
    cost += reach * service + gain * nodes[group.last].p;
    reach = gain;
  }
  return cost;
}

std::vector<RankedPlan> rank_plans(std::span<const NodeModel> nodes, const PipelineShape& shape,
                                   std::uint32_t width, std::uint64_t budget, bool lockstep) {
  std::vector<RankedPlan> out;
  for (const MergePlan& plan : MergePlan::all(nodes.size())) {
    RankedPlan r{plan, predicted_cost(nodes, plan, lockstep), 0, true};
    std::uint64_t bytes = 0;
    for (const QueueSpec& q : queue_specs(shape, plan, width, {})) {
      bytes = detail::saturating_add(bytes, detail::saturating_mul(q.min_items, q.item_bytes));
    }
    r.min_queue_bytes = bytes;
    r.fits = budget == 0 || bytes <= budget;
    out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedPlan& a, const RankedPlan& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.cost != b.cost) return a.cost < b.cost;
    return std::popcount(a.plan.cuts()) > std::popcount(b.plan.cuts());
  });
  return out;
}

std::string format_ranking(const std::vector<RankedPlan>& ranking, const std::string& time_unit,
                           std::size_t limit) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-5s %-40s %16s %16s %s\n", "rank", "strategy",
                ("cost " + time_unit).c_str(), "min queue bytes", "fits");
  out += line;
  for (std::size_t i = 0; i < ranking.size() && i < limit; ++i) {
    const RankedPlan& r = ranking[i];
    std::snprintf(line, sizeof line, "%-5zu %-40s %16.6g %16llu %s\n", i + 1, r.plan.to_string().c_str(),
                  r.cost, static_cast<unsigned long long>(r.min_queue_bytes), r.fits ? "yes" : "no");
    out += line;
  }
  return out;
}

}  // namespace sextant::pipeline
