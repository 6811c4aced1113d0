#include "scheduler/topology.hpp"

#include <hwloc.h>

#include <memory>

#include "core/error.hpp"

namespace sextant::scheduler {

int Topology::core_count() const noexcept {
  int n = 0;
  for (const auto& node : numa_nodes) n += static_cast<int>(node.cores.size());
  return n;
}

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

Topology read(hwloc_topology_t topo, bool synthetic) {
  Topology out;
  out.synthetic = synthetic;
  const int numa_count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  const int core_count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < std::max(numa_count, 1); ++i) out.numa_nodes.push_back({i, {}});
  for (int c = 0; c < core_count; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
    int node = 0;
    for (int i = 0; i < numa_count; ++i) {
      hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
      if (hwloc_bitmap_intersects(core->cpuset, numa->cpuset)) {
        node = i;
        break;
      }
    }
    const int pu = hwloc_bitmap_first(core->cpuset);
    out.numa_nodes[static_cast<std::size_t>(node)].cores.push_back(pu);
  }
  return out;
}

TopologyHandle load(const char* synthetic) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw Error::internal("hwloc_topology_init failed");
  TopologyHandle topo(raw);
  if (synthetic != nullptr && hwloc_topology_set_synthetic(raw, synthetic) != 0)
    throw Error::argument("topology", synthetic, "hwloc synthetic syntax, e.g. 'package:2 core:4 pu:1'",
                          "not a synthetic topology");
  if (hwloc_topology_load(raw) != 0) throw Error::internal("hwloc_topology_load failed");
  return topo;
}

}  // namespace

Topology discover_topology() { return read(load(nullptr).get(), false); }

Topology synthetic_topology(const std::string& description) {
  return read(load(description.c_str()).get(), true);
}

}  // namespace sextant::scheduler
