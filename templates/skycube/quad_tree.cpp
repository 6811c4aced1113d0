#include "templates/skycube/quad_tree.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace sextant::skycube {
namespace {

// Node index of one level: a node starts wherever the key (the path up to this level) changes.
template <class Key>
QuadTreeNodes group(std::size_t count, Key key, const std::vector<Mask>& masks_here) {
  QuadTreeNodes nodes;
  for (std::size_t i = 0; i < count; ++i) {
    if (i == 0 || key(i) != key(i - 1)) {
      nodes.masks.push_back(masks_here[i]);
      nodes.first_child.push_back(static_cast<std::uint32_t>(i));
    }
  }
  nodes.first_child.push_back(static_cast<std::uint32_t>(count));
  return nodes;
}

}  // namespace

void QuadTree::check_points(const Dataset& data, std::span<const PointId> points) {
  check_skycube_columns(data.dims());
  if (points.size() > 0xFFFFFFFFu)
    throw Error::argument("points", std::to_string(points.size()), "< 2^32", "too many points for the tree");
  for (const PointId id : points)
    if (id >= data.size())
      throw Error::internal("QuadTree: point id " + std::to_string(id) + " out of range");
}

QuadTree::QuadTree(const Dataset& data, std::span<const PointId> points)
    : QuadTree(build(data, points, [](std::size_t count, auto&& body) {
        for (std::size_t i = 0; i < count; ++i) body(i);
      })) {}

QuadTree QuadTree::from_leaves(QuadTreeLeaves leaves) {
  const int d = leaves.dims;
  const std::size_t s = leaves.ids.size();
  QuadTree t;
  t.d_ = d;
  t.stride_ = (d + 7) / 8 * 8;
  if (d < 1 || d > max_skycube_columns || leaves.pivots.size() != static_cast<std::size_t>(d) * 7 ||
      leaves.median.size() != s || leaves.quartile.size() != s || leaves.octile.size() != s ||
      leaves.rows.size() != s * static_cast<std::size_t>(t.stride_))
    throw Error::internal("QuadTree::from_leaves: inconsistent sizes");
  t.pivots_ = std::move(leaves.pivots);
  t.ids_ = std::move(leaves.ids);
  t.median_ = std::move(leaves.median);
  t.quartile_ = std::move(leaves.quartile);
  t.octile_ = std::move(leaves.octile);
  t.rows_ = std::move(leaves.rows);
  for (std::size_t i = 1; i < s; ++i) {
    const std::uint64_t a = detail::leaf_key(t.median_[i - 1], t.quartile_[i - 1], t.octile_[i - 1], d);
    const std::uint64_t b = detail::leaf_key(t.median_[i], t.quartile_[i], t.octile_[i], d);
    if (a > b || (a == b && t.ids_[i - 1] >= t.ids_[i]))
      throw Error::internal("QuadTree::from_leaves: leaf " + std::to_string(i) + " out of leaf order");
  }
  t.minima_.assign(static_cast<std::size_t>(d), std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < s; ++i)
    for (int j = 0; j < d; ++j)
      t.minima_[static_cast<std::size_t>(j)] = std::min(t.minima_[static_cast<std::size_t>(j)], t.row(i)[j]);
  t.median_.resize(s + label_padding, 0);
  t.quartile_.resize(s + label_padding, 0);
  t.octile_.resize(s + label_padding, 0);

  // Node index, bottom-up: level 2 over leaves, then level 1 over level-2 nodes, level 0 over level 1.
  t.nodes_[2] = group(
      s, [&](std::size_t i) { return t.label(i); }, t.octile_);
  const QuadTreeNodes& octiles = t.nodes_[2];
  std::vector<Mask> median_of_2(octiles.size());
  std::vector<Mask> quartile_of_2(octiles.size());
  for (std::size_t k = 0; k < octiles.size(); ++k) {
    median_of_2[k] = t.median_[octiles.first_child[k]];
    quartile_of_2[k] = t.quartile_[octiles.first_child[k]];
  }
  t.nodes_[1] = group(
      octiles.size(), [&](std::size_t k) { return std::pair(median_of_2[k], quartile_of_2[k]); },
      quartile_of_2);
  const QuadTreeNodes& quartiles = t.nodes_[1];
  std::vector<Mask> median_of_1(quartiles.size());
  for (std::size_t k = 0; k < quartiles.size(); ++k) median_of_1[k] = median_of_2[quartiles.first_child[k]];
  t.nodes_[0] = group(
      quartiles.size(), [&](std::size_t k) { return median_of_1[k]; }, median_of_1);
  t.nodes_[2].first_leaf = t.nodes_[2].first_child;
  for (int lvl = 1; lvl >= 0; --lvl) {
    QuadTreeNodes& n = t.nodes_[lvl];
    n.first_leaf.resize(n.first_child.size());
    for (std::size_t k = 0; k < n.first_child.size(); ++k)
      n.first_leaf[k] = t.nodes_[lvl + 1].first_leaf[n.first_child[k]];
  }
  return t;
}

PathLabel QuadTree::label_of(const float* values) const noexcept {
  const std::uint64_t key = detail::path_key(pivots_.data(), d_, values);
  const Mask low = full_mask(d_);
  return {static_cast<Mask>(key >> (2 * d_)) & low, static_cast<Mask>(key >> d_) & low,
          static_cast<Mask>(key) & low};
}

}  // namespace sextant::skycube
