#include "templates/pipeline/merge_plan.hpp"

#include <charconv>

#include "core/error.hpp"

namespace sextant::pipeline {

namespace {

constexpr std::size_t max_plan_nodes = 32;

std::uint32_t all_cuts(std::size_t nodes) {
  return nodes <= 1 ? 0U : static_cast<std::uint32_t>((std::uint64_t{1} << (nodes - 1)) - 1);
}

void check_nodes(std::size_t nodes) {
  if (nodes == 0 || nodes > max_plan_nodes)
    throw Error::internal("merge plan: " + std::to_string(nodes) + " nodes (1 .. 32)");
}

}  // namespace

MergePlan MergePlan::unmerged(std::size_t nodes) {
  check_nodes(nodes);
  return MergePlan(nodes, all_cuts(nodes));
}

MergePlan MergePlan::fully_merged(std::size_t nodes) {
  check_nodes(nodes);
  return MergePlan(nodes, 0);
}

MergePlan MergePlan::from_cuts(std::size_t nodes, std::uint32_t cuts) {
  check_nodes(nodes);
  if ((cuts & ~all_cuts(nodes)) != 0)
    throw Error::internal("merge plan: cut mask " + std::to_string(cuts) + " for " + std::to_string(nodes) +
                          " nodes");
  return MergePlan(nodes, cuts);
}

MergePlan MergePlan::parse(std::string_view text, std::size_t nodes, std::string_view parameter) {
  check_nodes(nodes);
  const std::string valid = "none, or every node 1.." + std::to_string(nodes) +
                            " once and in order, '+' joining merged nodes and ',' separating groups "
                            "(e.g. \"1,2+3\")";
  if (text == "none") return unmerged(nodes);
  std::uint32_t cuts = 0;
  std::size_t expected = 1;  // next node, 1-based
  std::size_t pos = 0;
  while (true) {
    std::size_t value = 0;
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc{} || ptr == begin)
      throw Error::argument(parameter, std::string(text), valid,
                            "expected a node number at character " + std::to_string(pos + 1));
    if (value != expected)
      throw Error::argument(
          parameter, std::string(text), valid,
          "node " + std::to_string(value) + " where node " + std::to_string(expected) + " comes next");
    pos = static_cast<std::size_t>(ptr - text.data());
    if (pos == text.size()) break;
    const char sep = text[pos];
    if (sep != '+' && sep != ',')
      throw Error::argument(parameter, std::string(text), valid,
                            std::string("unexpected '") + sep + "' at character " + std::to_string(pos + 1));
    if (expected == nodes)
      throw Error::argument(parameter, std::string(text), valid,
                            "the pipeline has only " + std::to_string(nodes) + " nodes");
    if (sep == ',') cuts |= std::uint32_t{1} << (expected - 1);
    ++expected;
    ++pos;
  }
  if (expected != nodes)
    throw Error::argument(
        parameter, std::string(text), valid,
        "nodes " + std::to_string(expected + 1) + ".." + std::to_string(nodes) + " are missing");
  return MergePlan(nodes, cuts);
}

std::vector<MergePlan> MergePlan::all(std::size_t nodes) {
  check_nodes(nodes);
  if (nodes > 21)
    throw Error::internal("merge plan: too many strategies to list for " + std::to_string(nodes) + " nodes");
  const std::uint32_t full = all_cuts(nodes);
  std::vector<MergePlan> out;
  out.reserve(std::size_t{1} << (nodes - 1));
  // Unmerged first, then fewer and fewer queues.
  for (std::uint32_t k = 0; k <= full; ++k) out.push_back(MergePlan(nodes, full - k));
  return out;
}

std::vector<NodeGroup> MergePlan::groups() const {
  std::vector<NodeGroup> out;
  std::size_t first = 0;
  for (std::size_t i = 0; i < nodes_; ++i)
    if (group_end(i)) {
      out.push_back({first, i});
      first = i + 1;
    }
  return out;
}

std::string MergePlan::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < nodes_; ++i) {
    out += std::to_string(i + 1);
    if (i + 1 < nodes_) out += queue_after(i) ? ',' : '+';
  }
  return out;
}

}  // namespace sextant::pipeline
