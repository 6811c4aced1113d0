// The synthetic gain pipeline: four nodes whose gain and work are parameters, for measuring the
// planner against known numbers. Node k turns an item x into its children: it mixes x (plus the
// node's salt) `work` extra times (its service time), then draws u_k candidate children
// c_j = mix(h + j) and keeps those with (c_j >> 32) < threshold_k, so the number of outputs per input is
// Binomial(u_k, g_k / u_k): average gain g_k, gain limit u_k, exactly u_k when g_k = u_k, none
// when g_k = 0. Sources are the indices 0 .. n - 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apps/pipelines/hash.hpp"
#include "core/host_device.hpp"
#include "templates/pipeline/hooks.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::apps::synthetic {

inline constexpr std::size_t nodes = 4;

struct NodeParams {
  std::uint32_t limit = 1;      // u
  std::uint32_t work = 0;       // extra mixing rounds per input
  std::uint64_t threshold = 0;  // keep a candidate when (c >> 32) < threshold; 2^32 keeps all
  std::uint64_t seed = 0;
};

// The per-replica state: the node's salt, derived from its seed when a replica starts.
struct NodeState {
  std::uint64_t salt = 0;
};

// At namespace scope: clang 14 does not index a template's own static constexpr array in a
// constant expression.
inline constexpr std::string_view gain_node_names[] = {"gain 1", "gain 2", "gain 3", "gain 4"};

template <unsigned K>
struct GainNode {
  static constexpr std::string_view name = gain_node_names[K];
  using Input = std::uint64_t;
  using Output = std::uint64_t;
  using Params = NodeParams;
  using State = NodeState;

  static SEXTANT_HD unsigned gain_limit(const Params& p) { return p.limit; }
  static SEXTANT_HD void init(const Params& p, State& s) {
    s.salt = mix64(p.seed ^ (0x5bd1e995ULL * (K + 1)));
  }

  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const State& s, const Input& x, Emit& out) {
    std::uint64_t h = mix64(x ^ s.salt);
    for (std::uint32_t w = 0; w < p.work; ++w) h = mix64(h);
    for (std::uint32_t j = 0; j < p.limit; ++j) {
      const std::uint64_t c = mix64(h + j);
      if ((c >> 32) < p.threshold) out.push(c);
    }
  }
};

using SyntheticPipeline = Pipeline<GainNode<0>, GainNode<1>, GainNode<2>, GainNode<3>>;

struct Config {
  std::uint64_t sources = 0;
  std::vector<double> gains{0.5, 2.0, 0.25, 1.0};  // g_k, 0 <= g_k <= u_k
  std::vector<std::uint32_t> limits{1, 4, 1, 1};   // u_k >= 1
  std::vector<std::uint32_t> work{16, 32, 8, 64};  // mixing rounds
  std::uint64_t seed = 1;
};

// Checks the configuration (Error::argument naming the option) and makes the instance.
Instance<SyntheticPipeline> make_instance(const Config& config);

// "gains=0.5,2,0.25,1 limits=1,4,1,1 work=16,32,8,64 sources=1000 seed=1"
std::string describe(const Config& config);

}  // namespace sextant::pipeline::apps::synthetic
