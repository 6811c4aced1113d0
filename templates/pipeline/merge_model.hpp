// The node-merging model (paper 003, Section 6). With per-node average gain g_i, max vector gain
// m_i, service time t_i and overhead p_i (measured unmerged, profile.hpp), a merged group
// n_j .. n_k runs, per input vector,
//     t_jk = sum_{i=j..k} M_{j,i-1} t_i         (M_{j,i-1} = m_j ... m_{i-1}; 1 for i = j)
// because without a queue n_{i+1} runs once per output of n_i's busiest lane. A strategy's
// predicted cost per input vector of n_1 is
//     sum over its groups [ G_{1,j-1} t_jk + G_{1,k} p_k ]
// (G_{1,k} = g_1 ... g_k): a group fires once per vector that reaches it, and the queue after a
// group costs p_k per vector entering it. Charging p_k per vector entering the queue is what
// reproduces the paper's Table 2 from its Table 1 (tests/pipeline/merge_model_test.cpp); the text's
// "per vector consumed by n_ji" does not (0.824 instead of 0.758 for the unmerged BLAST).
//
// The m_i factor is the price of lock-step lanes (a GPU's warp waits for its busiest lane). A core's
// lanes run one after the other, so inside a merged group node i + 1 runs once per output actually
// produced: for CPU profiles (lockstep = false) M_{j,i-1} is the average G_{j,i-1} instead.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "templates/pipeline/merge_plan.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/profile.hpp"

namespace sextant::pipeline {

struct NodeModel {
  double g = 0;  // average gain
  double m = 0;  // max vector gain
  double t = 0;  // service time per input vector
  double p = 0;  // overhead per input vector
};

std::vector<NodeModel> node_models(const PipelineProfile& profile);

// Predicted cost per input vector of n_1 (in the unit of t and p).
double predicted_cost(std::span<const NodeModel> nodes, const MergePlan& plan, bool lockstep = true);

struct RankedPlan {
  MergePlan plan;
  double cost = 0;
  std::uint64_t min_queue_bytes = 0;  // the plan's minimum safe queue sizes, per replica
  bool fits = true;                   // min_queue_bytes <= the budget given to rank_plans
};

// Every contiguous strategy, cheapest first (ties: fewer merges first). Strategies whose minimum
// safe queue sizes exceed `budget` bytes (0: no limit) are kept but marked and ranked after those
// that fit.
std::vector<RankedPlan> rank_plans(std::span<const NodeModel> nodes, const PipelineShape& shape,
                                   std::uint32_t width, std::uint64_t budget, bool lockstep = true);

std::string format_ranking(const std::vector<RankedPlan>& ranking, const std::string& time_unit,
                           std::size_t limit);

}  // namespace sextant::pipeline
