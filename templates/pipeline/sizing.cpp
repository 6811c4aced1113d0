#include "templates/pipeline/sizing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/saturating.hpp"

namespace sextant::pipeline {

std::string_view to_string(SizingRule rule) noexcept {
  switch (rule) {
    case SizingRule::equal:
      return "equal";
    case SizingRule::mercator:
      return "mercator";
    case SizingRule::sqrt:
      return "sqrt";
  }
  return "?";
}

SizingRule parse_sizing(std::string_view parameter, std::string_view text) {
  if (text == "equal") return SizingRule::equal;
  if (text == "mercator") return SizingRule::mercator;
  if (text == "sqrt") return SizingRule::sqrt;
  throw Error::argument(parameter, std::string(text), "equal, mercator or sqrt", "unknown sizing rule");
}

std::vector<QueueSpec> queue_specs(const PipelineShape& shape, const MergePlan& plan, std::uint32_t width,
                                   std::span<const double> gains) {
  if (plan.nodes() != shape.size())
    throw Error::internal("queue_specs: a plan of " + std::to_string(plan.nodes()) +
                          " nodes for a pipeline of " + std::to_string(shape.size()));
  if (!gains.empty() && gains.size() != shape.size())
    throw Error::internal("queue_specs: " + std::to_string(gains.size()) + " gains for " +
                          std::to_string(shape.size()) + " nodes");
  std::vector<QueueSpec> out;
  double cumulative = 1;
  for (const NodeGroup& g : plan.groups()) {
    std::uint64_t bound = width;
    for (std::size_t i = g.first; i <= g.last; ++i) {
      bound = detail::saturating_mul(bound, shape.gain_limits[i]);
      if (!gains.empty()) cumulative *= gains[i];
    }
    if (g.last + 1 == shape.size()) break;  // the last group feeds the sink, not a queue
    QueueSpec q;
    q.after = g.last;
    q.group_first = g.first;
    q.producer = shape.names[g.last];
    q.item_bytes = shape.output_bytes[g.last];
    q.min_items = bound;
    q.gain = gains.empty() ? 1.0 : cumulative;
    out.push_back(std::move(q));
  }
  return out;
}

std::uint64_t QueueSizes::bytes() const noexcept {
  std::uint64_t total = 0;
  for (std::size_t q = 0; q < queues.size(); ++q) total += capacity[q] * queues[q].item_bytes;
  return total;
}

std::uint64_t QueueSizes::min_bytes() const noexcept {
  std::uint64_t total = 0;
  for (const QueueSpec& q : queues) total += q.min_items * q.item_bytes;
  return total;
}

namespace {

// Bytes of a minimum safe queue, saturating.
std::uint64_t min_queue_bytes(const QueueSpec& q) {
  return detail::saturating_mul(q.min_items, q.item_bytes);
}

std::string describe_needs(const std::vector<QueueSpec>& queues, std::uint32_t width) {
  std::string out;
  for (const QueueSpec& q : queues) {
    if (!out.empty()) out += "; ";
    out += "the queue after node " + std::to_string(q.after + 1) + " (" + q.producer + ") needs " +
           std::to_string(min_queue_bytes(q)) + " bytes (" + std::to_string(width) + " lanes x " +
           std::to_string(q.min_items / std::max<std::uint32_t>(width, 1)) + " outputs per input x " +
           std::to_string(q.item_bytes) + " bytes)";
  }
  return out;
}

// Bytes of each free queue proportional to its weight, rounded down to whole items; queues that
// fall below their minimum are fixed there and the rest re-divided.
void divide(const std::vector<double>& weight, std::uint64_t budget, QueueSizes& out) {
  const std::size_t n = out.queues.size();
  std::vector<bool> fixed(n, false);
  while (true) {
    std::uint64_t left = budget;
    double total = 0;
    std::size_t free_queues = 0;
    for (std::size_t q = 0; q < n; ++q) {
      if (fixed[q])
        left -= min_queue_bytes(out.queues[q]);
      else {
        total += weight[q];
        ++free_queues;
      }
    }
    if (free_queues == 0) break;
    bool changed = false;
    for (std::size_t q = 0; q < n; ++q) {
      if (fixed[q]) continue;
      // No weight anywhere (every free queue has gain 0): an equal split of what is left.
      const double share = total > 0 ? weight[q] / total : 1.0 / static_cast<double>(free_queues);
      const double bytes = static_cast<double>(left) * share;
      const auto items = static_cast<std::uint64_t>(std::floor(bytes / out.queues[q].item_bytes));
      out.capacity[q] = items;
      if (items < out.queues[q].min_items) {
        fixed[q] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (std::size_t q = 0; q < n; ++q) {
    out.inflated[q] = fixed[q];
    if (fixed[q]) out.capacity[q] = out.queues[q].min_items;
  }
}

}  // namespace

QueueSizes size_queues(SizingRule rule, std::size_t budget, std::vector<QueueSpec> queues,
                       std::uint32_t width, std::string_view budget_parameter) {
  QueueSizes out;
  out.rule = rule;
  out.queues = std::move(queues);
  const std::size_t n = out.queues.size();
  out.capacity.assign(n, 0);
  out.inflated.assign(n, false);
  if (n == 0) {
    out.budget = budget;
    return out;
  }
  std::uint64_t need = 0;
  for (const QueueSpec& q : out.queues) {
    need = detail::saturating_add(need, min_queue_bytes(q));
  }
  if (rule == SizingRule::mercator && budget == 0) {
    // Mercator's compiler: every queue holds scale x vector width x the largest gain limit.
    std::uint64_t largest = 0;
    for (const QueueSpec& q : out.queues) largest = std::max(largest, q.min_items);
    const std::uint64_t items = detail::saturating_mul(largest, policy::mercator_queue_scale);
    std::uint64_t bytes = 0;
    for (const QueueSpec& q : out.queues)
      bytes = detail::saturating_add(bytes, detail::saturating_mul(items, q.item_bytes));
    if (bytes > (std::uint64_t{1} << 40))
      throw Error::argument(budget_parameter, "0 (the mercator default)", "a budget for a plan this large",
                            "Mercator's default sizes overflow: " + describe_needs(out.queues, width));
    for (std::size_t q = 0; q < n; ++q) out.capacity[q] = items;
    out.budget = static_cast<std::size_t>(bytes);
    return out;
  }
  // No budget named: the default, or the minimum safe sizes where a wide vector (a GPU's lanes)
  // needs more; a named budget below them is an error.
  if (budget == 0)
    budget = static_cast<std::size_t>(std::max<std::uint64_t>(policy::default_queue_budget, need));
  out.budget = budget;
  if (need > budget)
    throw Error::argument(
        budget_parameter, std::to_string(budget),
        ">= " + std::to_string(need) + " bytes for this pipeline, merge plan and vector width",
        "below the minimum safe queue sizes: " + describe_needs(out.queues, width));
  std::vector<double> weight(n, 1.0);
  for (std::size_t q = 0; q < n; ++q) {
    const QueueSpec& s = out.queues[q];
    if (rule == SizingRule::mercator) weight[q] = s.item_bytes;  // the same items for every queue
    if (rule == SizingRule::sqrt)
      weight[q] = std::sqrt(static_cast<double>(s.item_bytes) * std::max(s.gain, 0.0));
  }
  divide(weight, budget, out);
  return out;
}

std::vector<double> lemma_5_2(std::span<const double> gains, std::span<const std::uint32_t> item_bytes,
                              double budget) {
  if (gains.size() != item_bytes.size()) throw Error::internal("lemma_5_2: gains and sizes differ in length");
  double denominator = 0;
  for (std::size_t i = 0; i < gains.size(); ++i) denominator += std::sqrt(item_bytes[i] * gains[i]);
  std::vector<double> out(gains.size(), 0.0);
  if (denominator <= 0) return out;
  for (std::size_t i = 0; i < gains.size(); ++i)
    out[i] = std::sqrt(gains[i] / item_bytes[i]) * budget / denominator;
  return out;
}

double switch_rate_bound(std::span<const std::uint64_t> capacity, std::span<const QueueSpec> queues) {
  double r = 0;
  for (std::size_t q = 0; q < queues.size() && q < capacity.size(); ++q)
    if (queues[q].gain > 0 && capacity[q] > 0) r += 2.0 * queues[q].gain / static_cast<double>(capacity[q]);
  return r;
}

}  // namespace sextant::pipeline
