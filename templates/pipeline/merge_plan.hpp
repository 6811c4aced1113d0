// A merge plan: which adjacent nodes of a pipeline run back to back in one lane (a merged group),
// and where a queue sits between groups. Written as the paper writes strategies: "1,2+3,4" merges
// nodes 2 and 3 (1-based) and keeps queues after nodes 1 and 3; "none" keeps every queue. Kept
// as a cut mask: bit i set = a queue after node i (0-based, i < h - 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sextant::pipeline {

struct NodeGroup {
  std::size_t first = 0;  // 0-based, inclusive
  std::size_t last = 0;
};

class MergePlan {
 public:
  MergePlan() = default;

  static MergePlan unmerged(std::size_t nodes);
  static MergePlan fully_merged(std::size_t nodes);
  // Throws Error::internal for nodes outside 1 .. 32 or a cut at or past the last node.
  static MergePlan from_cuts(std::size_t nodes, std::uint32_t cuts);
  // "none", or groups of consecutive 1-based nodes joined by '+' and separated by ',' covering
  // 1 .. nodes in order. Throws Error::argument naming `parameter` and the problem.
  static MergePlan parse(std::string_view text, std::size_t nodes, std::string_view parameter = "--merge");
  // Every contiguous strategy of a pipeline of `nodes` nodes (2^(nodes-1) of them), unmerged first.
  static std::vector<MergePlan> all(std::size_t nodes);

  std::size_t nodes() const noexcept { return nodes_; }
  std::uint32_t cuts() const noexcept { return cuts_; }
  bool queue_after(std::size_t node) const noexcept {
    return node + 1 < nodes_ && ((cuts_ >> node) & 1U) != 0;
  }
  bool group_end(std::size_t node) const noexcept { return node + 1 == nodes_ || queue_after(node); }
  std::vector<NodeGroup> groups() const;
  std::string to_string() const;  // "1,2+3,4"

  friend bool operator==(const MergePlan&, const MergePlan&) = default;

 private:
  MergePlan(std::size_t nodes, std::uint32_t cuts) : nodes_(nodes), cuts_(cuts) {}
  std::size_t nodes_ = 0;
  std::uint32_t cuts_ = 0;
};

}  // namespace sextant::pipeline
