// The machine as hwloc sees it: NUMA nodes and the cores (first hardware thread of each)
// that belong to them. A synthetic description ("package:2 core:4 pu:1") makes multi-socket
// logic testable on any machine; binding is then a no-op.
#pragma once

#include <string>
#include <vector>

namespace sextant::scheduler {

struct NumaNode {
  int index = 0;             // logical NUMA index
  std::vector<int> cores;    // OS index of one processing unit per core
};

struct Topology {
  std::vector<NumaNode> numa_nodes;
  bool synthetic = false;

  int core_count() const noexcept;
};

// The real machine.
Topology discover_topology();
// hwloc's synthetic syntax, e.g. "package:2 core:4 pu:2"; throws Error on bad syntax.
Topology synthetic_topology(const std::string& description);

}  // namespace sextant::scheduler
