#include "templates/skycube/quad_tree.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace sextant::skycube {
namespace {

// Splits the sorted values [lo, hi) at a pivot: values < pivot go left, the rest right.
// The middle value, or, when it equals the smallest one (ties), the next larger value, so that
// a part with two distinct values always splits. `fallback` is returned for an empty part (no
// point ever compares with it).
struct Split {
  float pivot;
  std::size_t mid;
};
Split split(const std::vector<float>& sorted, std::size_t lo, std::size_t hi, float fallback) {
  if (lo >= hi) return {fallback, lo};
  const auto first = sorted.begin();
  float pivot = sorted[lo + (hi - lo) / 2];
  auto mid = static_cast<std::size_t>(std::lower_bound(first + lo, first + hi, pivot) - first);
  if (mid == lo) {
    const auto next = static_cast<std::size_t>(std::upper_bound(first + lo, first + hi, pivot) - first);
    if (next < hi) {
      pivot = sorted[next];
      mid = next;
    }
  }
  return {pivot, mid};
}

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

QuadTree::QuadTree(const Dataset& data, std::span<const PointId> points)
    : d_(data.dims()),
      stride_((data.dims() + 7) / 8 * 8),
      pivots_(static_cast<std::size_t>(data.dims()) * 7) {
  const std::size_t s = points.size();
  if (s > 0xFFFFFFFFu)
    throw Error::argument("points", std::to_string(s), "< 2^32", "too many points for the tree");
  for (const PointId id : points)
    if (id >= data.size())
      throw Error::internal("QuadTree: point id " + std::to_string(id) + " out of range");

  // Pivots, column by column, from the sorted column of the tree's points.
  std::vector<float> column(s);
  for (int j = 0; j < d_; ++j) {
    for (std::size_t i = 0; i < s; ++i) column[i] = data(points[i], j);
    std::sort(column.begin(), column.end());
    const float fallback = s ? column[s / 2] : 0.0f;
    const Split m = split(column, 0, s, fallback);
    const Split q0 = split(column, 0, m.mid, m.pivot);
    const Split q1 = split(column, m.mid, s, m.pivot);
    const Split o0 = split(column, 0, q0.mid, q0.pivot);
    const Split o1 = split(column, q0.mid, m.mid, q0.pivot);
    const Split o2 = split(column, m.mid, q1.mid, q1.pivot);
    const Split o3 = split(column, q1.mid, s, q1.pivot);
    const float values[7] = {m.pivot, q0.pivot, q1.pivot, o0.pivot, o1.pivot, o2.pivot, o3.pivot};
    std::copy(values, values + 7, pivots_.begin() + static_cast<std::ptrdiff_t>(pivot_index(j, 0)));
  }

  // Labels, then leaf order.
  std::vector<PathLabel> labels(s);
  for (std::size_t i = 0; i < s; ++i) labels[i] = label_of(data.row(points[i]));
  std::vector<std::uint32_t> order(s);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const PathLabel& la = labels[a];
    const PathLabel& lb = labels[b];
    if (la.median != lb.median) return la.median < lb.median;
    if (la.quartile != lb.quartile) return la.quartile < lb.quartile;
    if (la.octile != lb.octile) return la.octile < lb.octile;
    return points[a] < points[b];
  });

  ids_.resize(s);
  median_.assign(s + label_padding, 0);
  quartile_.assign(s + label_padding, 0);
  octile_.assign(s + label_padding, 0);
  rows_ = AlignedBuffer<float>(s * static_cast<std::size_t>(stride_));
  for (std::size_t i = 0; i < s; ++i) {
    const std::uint32_t from = order[i];
    ids_[i] = points[from];
    median_[i] = labels[from].median;
    quartile_[i] = labels[from].quartile;
    octile_[i] = labels[from].octile;
    const float* src = data.row(ids_[i]);
    float* dst = rows_.data() + i * static_cast<std::size_t>(stride_);
    for (int j = 0; j < stride_; ++j) dst[j] = j < d_ ? src[j] : 0.0f;
  }

  // Node index, bottom-up: level 2 over leaves, then level 1 over level-2 nodes, level 0 over level 1.
  nodes_[2] = group(
      s, [&](std::size_t i) { return label(i); }, octile_);
  const QuadTreeNodes& octiles = nodes_[2];
  std::vector<Mask> median_of_2(octiles.size());
  std::vector<Mask> quartile_of_2(octiles.size());
  for (std::size_t k = 0; k < octiles.size(); ++k) {
    median_of_2[k] = median_[octiles.first_child[k]];
    quartile_of_2[k] = quartile_[octiles.first_child[k]];
  }
  nodes_[1] = group(
      octiles.size(), [&](std::size_t k) { return std::pair(median_of_2[k], quartile_of_2[k]); },
      quartile_of_2);
  const QuadTreeNodes& quartiles = nodes_[1];
  std::vector<Mask> median_of_1(quartiles.size());
  for (std::size_t k = 0; k < quartiles.size(); ++k) median_of_1[k] = median_of_2[quartiles.first_child[k]];
  nodes_[0] = group(
      quartiles.size(), [&](std::size_t k) { return median_of_1[k]; }, median_of_1);
  nodes_[2].first_leaf = nodes_[2].first_child;
  for (int lvl = 1; lvl >= 0; --lvl) {
    QuadTreeNodes& n = nodes_[lvl];
    n.first_leaf.resize(n.first_child.size());
    for (std::size_t k = 0; k < n.first_child.size(); ++k)
      n.first_leaf[k] = nodes_[lvl + 1].first_leaf[n.first_child[k]];
  }
}

PathLabel QuadTree::label_of(const float* values) const noexcept {
  PathLabel l;
  for (int j = 0; j < d_; ++j) {
    const float v = values[j];
    const int half = v >= median(j) ? 1 : 0;
    const int quarter = 2 * half + (v >= quartile(j, half) ? 1 : 0);
    const int eighth = v >= octile(j, quarter) ? 1 : 0;
    l.median |= static_cast<Mask>(half) << j;
    l.quartile |= static_cast<Mask>(quarter & 1) << j;
    l.octile |= static_cast<Mask>(eighth) << j;
  }
  return l;
}

}  // namespace sextant::skycube
