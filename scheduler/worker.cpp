#include "scheduler/worker.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace sextant::scheduler {

namespace {

std::string device_range(std::string_view prefix, int count) {
  if (count == 0) return "none on this machine";
  return std::string(prefix) + "0 .. " + std::string(prefix) + std::to_string(count - 1);
}

// How many cores of each node get workers: all, or `limit` dealt one at a time over the used nodes.
std::vector<std::size_t> core_quotas(const Topology& topology, const std::vector<bool>& use_node, int limit) {
  std::vector<std::size_t> quota(topology.numa_nodes.size(), 0);
  for (std::size_t n = 0; n < quota.size(); ++n)
    if (use_node[n]) quota[n] = topology.numa_nodes[n].cores.size();
  std::size_t total = 0;
  for (const std::size_t q : quota) total += q;
  if (limit <= 0 || static_cast<std::size_t>(limit) >= total) return quota;
  std::vector<std::size_t> dealt(quota.size(), 0);
  for (auto left = static_cast<std::size_t>(limit); left > 0;)
    for (std::size_t n = 0; n < quota.size() && left > 0; ++n)
      if (dealt[n] < quota[n]) {
        ++dealt[n];
        --left;
      }
  return dealt;
}

void add_cpu_workers(const NumaNode& node, std::size_t cores, const WorkerLayout& layout,
                     std::vector<WorkerInfo>& out) {
  std::size_t group = 1;
  if (layout.cpu == CpuWorkers::per_group)
    group = layout.cores_per_group <= 0 ? cores : static_cast<std::size_t>(layout.cores_per_group);
  for (std::size_t first = 0; first < cores; first += group) {
    const std::size_t last = std::min(first + group, cores);
    WorkerInfo w;
    w.id = static_cast<int>(out.size());
    w.kind = DeviceKind::cpu;
    w.device = {DeviceKind::cpu, node.index};
    w.numa_node = node.index;
    w.package = node.core_packages.empty() ? 0 : node.core_packages[first];
    w.cores.assign(node.cores.begin() + static_cast<std::ptrdiff_t>(first),
                   node.cores.begin() + static_cast<std::ptrdiff_t>(last));
    out.push_back(std::move(w));
  }
}

struct GpuWorker {
  std::size_t gpu;
  std::vector<int> own;
};

// The cores [next_free[n], end) of each node that no worker got, dealt one at a time to the node's
// GPU host workers; with a core limit, only while the workers own fewer cores than it.
void deal_spare_cores(const Topology& topology, const std::vector<std::size_t>& quota,
                      std::vector<std::size_t>& next_free, const WorkerLayout& layout,
                      std::vector<GpuWorker>& gpu_workers) {
  std::size_t owned = 0;
  for (const std::size_t q : quota) owned += q;
  for (const GpuWorker& g : gpu_workers) owned += g.own.size();
  std::size_t budget = std::numeric_limits<std::size_t>::max();
  if (layout.cpu_cores > 0)
    budget = static_cast<std::size_t>(layout.cpu_cores) > owned
                 ? static_cast<std::size_t>(layout.cpu_cores) - owned
                 : 0;
  for (std::size_t n = 0; n < topology.numa_nodes.size(); ++n) {
    std::vector<GpuWorker*> here;
    for (GpuWorker& g : gpu_workers)
      if (topology.gpus[g.gpu].numa_node == static_cast<int>(n) && !g.own.empty()) here.push_back(&g);
    const std::vector<int>& cores = topology.numa_nodes[n].cores;
    for (std::size_t k = 0; !here.empty() && budget > 0 && next_free[n] < cores.size(); ++k, --budget)
      here[k % here.size()]->own.push_back(cores[next_free[n]++]);
  }
  for (GpuWorker& g : gpu_workers) std::sort(g.own.begin(), g.own.end());
}

}  // namespace

std::vector<WorkerInfo> plan_workers(const Topology& topology, const WorkerLayout& layout) {
  if (layout.cpu == CpuWorkers::per_group && layout.cores_per_group < 0)
    throw Error::argument("cores per group", std::to_string(layout.cores_per_group),
                          ">= 0 (0 = a NUMA node)");
  if (layout.cpu_cores < 0)
    throw Error::argument("cpu cores", std::to_string(layout.cpu_cores), ">= 0 (0 = every selected core)");
  if (layout.gpu_workers < 1)
    throw Error::argument("gpu workers", std::to_string(layout.gpu_workers), ">= 1 host workers per GPU");
  const int nodes = static_cast<int>(topology.numa_nodes.size());
  std::vector<bool> use_node(topology.numa_nodes.size(), layout.devices.all);
  std::vector<bool> use_gpu(topology.gpus.size(), layout.devices.all);
  for (const DeviceId& id : layout.devices.devices) {
    if (id.kind == DeviceKind::cpu) {
      if (id.index < 0) {
        std::fill(use_node.begin(), use_node.end(), true);
      } else if (id.index < nodes) {
        use_node[static_cast<std::size_t>(id.index)] = true;
      } else {
        throw Error::argument("devices", to_string(id), device_range("numa", nodes), "no such NUMA node");
      }
      continue;
    }
    const auto it = std::find_if(topology.gpus.begin(), topology.gpus.end(),
                                 [&](const GpuInfo& g) { return g.ordinal == id.index; });
    if (it == topology.gpus.end())
      throw Error::argument("devices", to_string(id), device_range("gpu", topology.gpu_count()),
                            "no such GPU");
    use_gpu[static_cast<std::size_t>(it - topology.gpus.begin())] = true;
  }

  std::vector<WorkerInfo> out;
  std::vector<std::size_t> quota = core_quotas(topology, use_node, layout.cpu_cores);
  // gpu_own_core: gpu_cores cores of its node for each GPU host thread, from the cores no CPU
  // worker got, else from the node's CPU workers while it keeps at least one.
  if (layout.gpu_cores < 1)
    throw Error::argument("gpu cores", std::to_string(layout.gpu_cores), ">= 1 cores per GPU host worker");
  std::vector<GpuWorker> gpu_workers;
  std::vector<std::size_t> next_free(quota);
  for (std::size_t g = 0; g < topology.gpus.size(); ++g) {
    if (!use_gpu[g]) continue;
    for (int k = 0; k < layout.gpu_workers; ++k) {
      GpuWorker w{g, {}};
      const int node = topology.gpus[g].numa_node;
      if (layout.gpu_own_core && node >= 0) {
        const auto n = static_cast<std::size_t>(node);
        const std::vector<int>& cores = topology.numa_nodes[n].cores;
        for (int c = 0; c < layout.gpu_cores; ++c) {
          if (next_free[n] < cores.size()) {
            w.own.push_back(cores[next_free[n]++]);
          } else if (quota[n] > 1) {
            w.own.push_back(cores[--quota[n]]);
          } else {
            break;
          }
        }
        std::sort(w.own.begin(), w.own.end());
      }
      gpu_workers.push_back(w);
    }
  }
  if (layout.gpu_own_core && layout.gpu_spare_cores)
    deal_spare_cores(topology, quota, next_free, layout, gpu_workers);
  for (std::size_t n = 0; n < topology.numa_nodes.size(); ++n)
    if (quota[n] > 0) add_cpu_workers(topology.numa_nodes[n], quota[n], layout, out);
  for (const GpuWorker& g : gpu_workers) {
    const GpuInfo& gpu = topology.gpus[g.gpu];
    WorkerInfo w;
    w.id = static_cast<int>(out.size());
    w.kind = DeviceKind::gpu;
    w.device = {DeviceKind::gpu, gpu.ordinal};
    w.numa_node = gpu.numa_node;
    w.gpu_ordinal = gpu.ordinal;
    w.gpu_memory_bytes = gpu.memory_bytes;
    if (gpu.numa_node >= 0) {
      // The host thread feeding a GPU stays near it: on its own core, or sharing the node's cores
      // with the CPU workers.
      const NumaNode& node = topology.numa_nodes[static_cast<std::size_t>(gpu.numa_node)];
      w.cores = g.own.empty() ? node.cores : g.own;
      w.shares_cores = g.own.empty();
      w.package = node.core_packages.empty() ? 0 : node.core_packages.front();
    }
    out.push_back(std::move(w));
  }
  if (out.empty()) throw Error::argument("devices", "(selection)", "at least one core or GPU", "no workers");
  return out;
}

std::vector<int> victim_order(std::span<const WorkerInfo> workers, int thief) {
  const auto n = static_cast<int>(workers.size());
  const WorkerInfo& me = workers[static_cast<std::size_t>(thief)];
  // 0: same node and package, 1: same node (spanning packages), 2: same package, 3: remote.
  const auto tier = [&](const WorkerInfo& w) {
    const bool node = me.numa_node >= 0 && w.numa_node == me.numa_node;
    const bool package = me.package >= 0 && w.package == me.package;
    return (node ? 0 : 2) + (package ? 0 : 1);
  };
  std::vector<int> order;
  order.reserve(workers.size());
  for (int step = 1; step < n; ++step) order.push_back((thief + step) % n);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return tier(workers[static_cast<std::size_t>(a)]) < tier(workers[static_cast<std::size_t>(b)]);
  });
  return order;
}

}  // namespace sextant::scheduler
