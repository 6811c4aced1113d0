#include "scheduler/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <string>

#include "core/error.hpp"

namespace sextant::scheduler {

namespace detail {
struct HwlocTopology {
  hwloc_topology_t handle = nullptr;
  explicit HwlocTopology(hwloc_topology_t h) : handle(h) {}
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  ~HwlocTopology() { hwloc_topology_destroy(handle); }
};
}  // namespace detail

int Topology::core_count() const noexcept {
  int n = 0;
  for (const auto& node : numa_nodes) n += static_cast<int>(node.cores.size());
  return n;
}

namespace {

// Index of the first object of `type` whose cpuset intersects `set`, or 0.
int first_intersecting(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_cpuset_t set) {
  const int count = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < count; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
    if (hwloc_bitmap_intersects(obj->cpuset, set)) return i;
  }
  return 0;
}

Topology read(hwloc_topology_t topo, bool synthetic) {
  Topology out;
  out.synthetic = synthetic;
  const int numa_count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  const int core_count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  out.packages = std::max(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), 1);
  for (int i = 0; i < std::max(numa_count, 1); ++i) out.numa_nodes.push_back({i, {}, {}});
  for (int c = 0; c < core_count; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
    const int node = first_intersecting(topo, HWLOC_OBJ_NUMANODE, core->cpuset);
    const int package = first_intersecting(topo, HWLOC_OBJ_PACKAGE, core->cpuset);
    auto& target = out.numa_nodes[static_cast<std::size_t>(node)];
    target.cores.push_back(hwloc_bitmap_first(core->cpuset));
    target.core_packages.push_back(package);
  }
  return out;
}

std::shared_ptr<detail::HwlocTopology> load(const char* synthetic) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw Error::internal("hwloc_topology_init failed");
  auto topo = std::make_shared<detail::HwlocTopology>(raw);
  if (synthetic != nullptr && hwloc_topology_set_synthetic(raw, synthetic) != 0)
    throw Error::argument("topology", synthetic, "hwloc synthetic syntax, e.g. 'package:2 core:4 pu:1'",
                          "not a synthetic topology");
  if (hwloc_topology_load(raw) != 0) throw Error::internal("hwloc_topology_load failed");
  return topo;
}

}  // namespace

Topology discover_topology() {
  auto topo = load(nullptr);
  Topology out = read(topo->handle, false);
  out.hwloc = std::move(topo);
  return out;
}

Topology synthetic_topology(const std::string& description) {
  return read(load(description.c_str())->handle, true);
}

void add_gpus(Topology& topology, std::vector<GpuInfo> gpus) {
  const int nodes = static_cast<int>(topology.numa_nodes.size());
  for (const GpuInfo& gpu : gpus) {
    const std::string name = "gpu" + std::to_string(gpu.ordinal);
    if (gpu.ordinal < 0) throw Error::argument("gpu ordinal", std::to_string(gpu.ordinal), ">= 0");
    const auto same = [&](const GpuInfo& g) { return g.ordinal == gpu.ordinal; };
    if (std::count_if(gpus.begin(), gpus.end(), same) > 1 ||
        std::any_of(topology.gpus.begin(), topology.gpus.end(), same))
      throw Error::argument("gpus", name, "distinct ordinals", "ordinal listed twice");
    if (gpu.numa_node < -1 || gpu.numa_node >= nodes)
      throw Error::argument(name + " numa node", std::to_string(gpu.numa_node),
                            "-1 (unknown) .. " + std::to_string(nodes - 1));
  }
  for (GpuInfo& gpu : gpus) topology.gpus.push_back(std::move(gpu));
  std::sort(topology.gpus.begin(), topology.gpus.end(),
            [](const GpuInfo& a, const GpuInfo& b) { return a.ordinal < b.ordinal; });
}

int numa_node_of_pci_device(const Topology& topology, std::string_view pci_bus_id) noexcept {
  if (topology.synthetic || !topology.hwloc || topology.numa_nodes.empty()) return -1;
  if (topology.numa_nodes.size() == 1) return 0;
  try {
    // sysfs names devices "dddd:bb:dd.f" in lower case; CUDA may print an 8-digit domain.
    std::string id(pci_bus_id);
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
    if (const auto colon = id.find(':'); colon != std::string::npos && colon > 4) id.erase(0, colon - 4);
    std::ifstream in("/sys/bus/pci/devices/" + id + "/numa_node");
    int os_index = -1;
    if (!(in >> os_index) || os_index < 0) return -1;
    const hwloc_obj_t node =
        hwloc_get_numanode_obj_by_os_index(topology.hwloc->handle, static_cast<unsigned>(os_index));
    return node == nullptr ? -1 : static_cast<int>(node->logical_index);
  } catch (...) {
    return -1;
  }
}

BindResult bind_current_thread(const Topology& topology, std::span<const int> processing_units) noexcept {
  if (topology.synthetic || !topology.hwloc || processing_units.empty()) return BindResult::skipped;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) return BindResult::failed;
  for (const int pu : processing_units) hwloc_bitmap_set(set, static_cast<unsigned>(pu));
  const int rc = hwloc_set_cpubind(topology.hwloc->handle, set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(set);
  return rc == 0 ? BindResult::bound : BindResult::failed;
}

}  // namespace sextant::scheduler
