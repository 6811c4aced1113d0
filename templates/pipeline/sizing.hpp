// Queue sizing (paper 003, Section 5): how a replica's queue budget of T bytes is divided among
// its queues. A queue sits after every group of a merge plan but the last; the queue after the
// group n_j .. n_k holds items of b_k bytes, receives G_k items per source item on average (the
// cumulative average gain) and must hold at least v x u_j x ... x u_k items (the minimum safe size:
// one vector's worst case). Three rules:
//   equal     the same bytes for every queue;
//   mercator  Mercator's default: the same items for every queue, scale x v x max gain limit
//             (scale = policy::mercator_queue_scale) without a budget, else as many as fit;
//   sqrt      Lemma 5.2: c_i proportional to sqrt(G_i / b_i), i.e. c_i = sqrt(G_i / b_i) T /
//             sum_j sqrt(b_j G_j), which minimises the switch-rate bound R' = sum 2 / d_i.
// Every rule rounds down to whole items, then raises a queue below its minimum safe size to that
// size and divides what is left among the others by the same rule, until all are safe (Section
// 5.3); the total never exceeds T. A budget below the sum of the minimum safe sizes is an error
// that names every queue and what it needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "templates/pipeline/merge_plan.hpp"
#include "templates/pipeline/pipeline.hpp"

namespace sextant::pipeline {

enum class SizingRule { equal, mercator, sqrt };

std::string_view to_string(SizingRule rule) noexcept;
// "equal", "mercator" or "sqrt"; throws Error::argument naming `parameter`.
SizingRule parse_sizing(std::string_view parameter, std::string_view text);

// One queue of a plan.
struct QueueSpec {
  std::size_t after = 0;         // the node (0-based) whose outputs it holds: its group's last
  std::size_t group_first = 0;   // its group's first node
  std::string producer;          // that node's name, for messages
  std::uint32_t item_bytes = 0;  // b
  std::uint64_t min_items = 0;   // v x product of the group's gain limits
  double gain = 0;               // G: items entering per source item (cumulative average gain)
};

// The queues of `plan` for lanes of `width`. `gains` holds g_i per node (measured, e.g. by a
// profile; empty when the rule needs none: G is then 1 for every queue). Throws Error::argument when
// a queue's minimum safe size does not fit in 64 bits.
std::vector<QueueSpec> queue_specs(const PipelineShape& shape, const MergePlan& plan, std::uint32_t width,
                                   std::span<const double> gains);

struct QueueSizes {
  SizingRule rule = SizingRule::equal;
  std::size_t budget = 0;  // T, bytes (what the rule divided)
  std::vector<QueueSpec> queues;
  std::vector<std::uint64_t> capacity;  // items, per queue
  std::vector<bool> inflated;           // raised to its minimum safe size

  std::uint64_t bytes() const noexcept;
  std::uint64_t min_bytes() const noexcept;  // sum of the minimum safe sizes
};

// Sizes the queues. budget = 0: policy::default_queue_budget (raised to the minimum safe sizes where
// they need more) for equal and sqrt, scale policy::mercator_queue_scale for mercator. `budget_parameter`
// names the budget in the error raised when it is below the minimum safe sizes.
QueueSizes size_queues(SizingRule rule, std::size_t budget, std::vector<QueueSpec> queues,
                       std::uint32_t width, std::string_view budget_parameter = "--queue-budget");

// Lemma 5.2 over the reals, before rounding and safety: c_i = sqrt(G_i / b_i) T / sum_j sqrt(b_j G_j).
std::vector<double> lemma_5_2(std::span<const double> gains, std::span<const std::uint32_t> item_bytes,
                              double budget);

// The switch-rate bound R' = sum_i 2 / d_i with d_i = c_i / G_i (Section 5.2), per source item:
// what the sqrt rule minimises. Queues with G_i = 0 contribute nothing.
double switch_rate_bound(std::span<const std::uint64_t> capacity, std::span<const QueueSpec> queues);

}  // namespace sextant::pipeline
