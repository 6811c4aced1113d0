// Instrumentation (paper 003, Sections 3 and 7.3): what a profiled run counts per node, and the
// model parameters derived from it:
//   g_i  average gain: outputs / inputs;
//   m_i  max vector gain: the mode, over the node's full input vectors, of the most outputs any one
//        lane produced from its input (over all its vectors when it never fired a full one);
//   t_i  service time per input vector: the node's body and its output writes;
//   p_i  overhead per input vector: choosing the node (the scheduler) and the bookkeeping around
//        its firing;
// and the number of node switches (calls to the scheduler that start a different group). Times are
// in the device's unit: nanoseconds on a CPU, clock cycles on a GPU. Per-vector figures count a node
// as the head of its group, so a profile for the model is taken unmerged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "templates/pipeline/pipeline.hpp"

namespace sextant::pipeline {

struct NodeCounters {
  std::uint64_t inputs = 0;                  // items consumed, in or outside a merged group
  std::uint64_t outputs = 0;                 // items emitted
  std::uint64_t vectors = 0;                 // input vectors fired as the head of its group
  std::uint64_t full_vectors = 0;            // of them, full ones (v inputs)
  double service = 0;                        // time in the firing itself
  double overhead = 0;                       // time choosing it and around its firing
  std::vector<std::uint64_t> full_max_gain;  // histogram of the largest lane gain of each full vector
  std::vector<std::uint64_t> any_max_gain;   // the same over every vector

  void add(const NodeCounters& o);
};

struct RunCounters {
  std::uint64_t switches = 0;  // scheduler calls that started a different group
  std::uint64_t firings = 0;   // vectors fired, all groups
  std::uint64_t chunks = 0;    // chunks of the source processed
  std::vector<NodeCounters> nodes;

  explicit RunCounters(std::size_t node_count = 0) : nodes(node_count) {}
  void add(const RunCounters& o);
};

struct NodeProfile {
  std::string name;
  std::uint32_t gain_limit = 0;  // u_i
  std::uint64_t inputs = 0;
  std::uint64_t outputs = 0;
  std::uint64_t vectors = 0;
  double g = 0;  // average gain
  double m = 0;  // max vector gain (mode)
  double t = 0;  // service time per input vector
  double p = 0;  // overhead per input vector
};

struct PipelineProfile {
  std::vector<NodeProfile> nodes;
  std::uint64_t switches = 0;
  std::uint64_t firings = 0;
  std::uint32_t width = 0;
  std::string time_unit;  // "ns" or "cycles"
  bool lockstep = false;  // measured on lanes that run in lock step (a GPU), not one after the other
  std::string device;     // where it was measured, e.g. "cpu (16 lanes)"
  std::uint64_t sources = 0;
  double seconds = 0;

  std::vector<double> gains() const;  // g_i per node
};

// The mode of a histogram (ties go to the larger gain: the conservative estimate); 0 when empty.
double histogram_mode(const std::vector<std::uint64_t>& histogram);

PipelineProfile derive_profile(const PipelineShape& shape, const RunCounters& counters, std::uint32_t width,
                               std::string time_unit);

// A table for people (one row per node) and CSV.
std::string format_profile(const PipelineProfile& profile);
std::string profile_csv(const PipelineProfile& profile);

}  // namespace sextant::pipeline
