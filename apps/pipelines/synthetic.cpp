#include "apps/pipelines/synthetic.hpp"

#include <cmath>
#include <cstdio>
#include <type_traits>

#include "core/error.hpp"

namespace sextant::pipeline::apps::synthetic {

namespace {

template <class T>
std::string join(const std::vector<T>& v) {
  std::string out;
  for (const T& x : v) {
    if (!out.empty()) out += ',';
    if constexpr (std::is_floating_point_v<T>) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x);
      out += buf;
    } else {
      out += std::to_string(x);
    }
  }
  return out;
}

}  // namespace

Instance<SyntheticPipeline> make_instance(const Config& c) {
  if (c.gains.size() != nodes) throw Error::argument("--gains", join(c.gains), "4 values, one per node");
  if (c.limits.size() != nodes) throw Error::argument("--limits", join(c.limits), "4 values, one per node");
  if (c.work.size() != nodes) throw Error::argument("--work", join(c.work), "4 values, one per node");
  Instance<SyntheticPipeline> in;
  NodeParams p[nodes];
  for (std::size_t k = 0; k < nodes; ++k) {
    if (c.limits[k] < 1 || c.limits[k] > 64)
      throw Error::argument("--limits", join(c.limits), "1 .. 64 for every node",
                            "node " + std::to_string(k + 1) + "'s gain limit is out of range");
    if (!(c.gains[k] >= 0) || c.gains[k] > c.limits[k])
      throw Error::argument("--gains", join(c.gains), "0 <= gain <= the node's limit",
                            "node " + std::to_string(k + 1) + "'s gain is out of range");
    if (c.work[k] > 1000000) throw Error::argument("--work", join(c.work), "0 .. 1000000 rounds per node");
    p[k].limit = c.limits[k];
    p[k].work = c.work[k];
    p[k].threshold = static_cast<std::uint64_t>(std::llround(c.gains[k] / c.limits[k] * 4294967296.0));
    p[k].seed = mix64(c.seed * 4 + k);
  }
  in.params = make_pack(p[0], p[1], p[2], p[3]);
  in.sources = {nullptr, c.sources};
  return in;
}

std::string describe(const Config& c) {
  return "gains=" + join(c.gains) + " limits=" + join(c.limits) + " work=" + join(c.work) +
         " sources=" + std::to_string(c.sources) + " seed=" + std::to_string(c.seed);
}

}  // namespace sextant::pipeline::apps::synthetic
