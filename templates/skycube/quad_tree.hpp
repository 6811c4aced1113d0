// The static quad tree of MDMC (paper 004, sections 4.3, 5.2, 6.2; SkyAlign's global pivots
// plus a third, octile level) over the extended skyline S+. Built once per run and read by
// every device, so it is plain flat arrays: no pointers, no CPU or CUDA headers.
//
// Pivots. Per column j, seven global pivots of S+: the median, the quartile of each median
// half and the octile of each quarter (a node's pivot is the middle value of its sorted part of
// the column; when that equals the part's smallest value, the next larger value is taken, so a
// part with two distinct values is always split — it matters for data with ties).
//
// Path labels. Bit j of a mask is set iff the point's value is >= the pivot ("upper, worse
// part"); values equal to a pivot go up. The quartile pivot a point is compared with is the
// one of its median half, the octile pivot the one of its quarter. So per column the three
// bits (median, quartile, octile) form a bucket number 0..7, ascending with the value.
//
// Inference rules (exact, used by the filter and the refine). For points q and p, column j:
//   * the first level whose bit differs compared both values with the same pivot v (the
//     bits above were equal, so they chose the same quartile / octile pivot), hence
//       q's bit 0, p's bit 1  =>  q[j] < v <= p[j]  =>  q[j] <  p[j]   (q strictly better);
//       q's bit 1, p's bit 0  =>  p[j] < v <= q[j]  =>  q[j] >  p[j]   (q strictly worse);
//   * equal paths on j imply nothing; in particular "q[j] <= p[j]" is never inferred except
//     through "q[j] < p[j]". A quartile bit is only compared when the median bits are equal,
//     an octile bit only when median and quartile bits are (elsewhere the pivots differ).
// better_columns / worse_columns below implement exactly this, bit-parallel over columns.
//
// Layout. Points in leaf order: sorted by (median mask, quartile mask, octile mask, id). Per
// leaf position: id, the three masks and the coordinates (padded rows of stride() floats,
// 64-byte aligned, padding zero, so 8-wide SIMD loads need no tail handling). Above the
// leaves, one node array per level: level 0 = distinct median masks, level 1 = distinct
// (median, quartile) pairs, level 2 = distinct full paths; node k of a level has the mask of
// that level and its children [first_child[k], first_child[k+1]) in the next level (leaf
// positions for level 2) and its leaves [first_leaf[k], first_leaf[k+1]), so a traversal can
// skip whole subtrees or scan a subtree's leaves as one flat range.
//
// Building. QuadTree::build runs the three steps (pivots per column, a label per point, the leaf
// order) with a caller's parallel-for, so the serial constructor and the multi-core builder
// (cpu::QuadTreeCpu) share one code path; a device builder (gpu::QuadTreeGpu) computes the same
// leaves elsewhere and hands them to from_leaves, which checks the order and builds the node index.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/dataset.hpp"
#include "core/subspace.hpp"
#include "templates/skycube/quad_tree_steps.hpp"

namespace sextant::skycube {

// A point's path from the root to its leaf.
struct PathLabel {
  Mask median = 0;
  Mask quartile = 0;
  Mask octile = 0;

  friend bool operator==(const PathLabel&, const PathLabel&) = default;
};

// Columns on which q is provably strictly better than p (q[j] < p[j]), from labels alone.
constexpr Mask better_columns(const PathLabel& q, const PathLabel& p) noexcept {
  const Mask same_half = ~(q.median ^ p.median);
  const Mask same_quarter = same_half & ~(q.quartile ^ p.quartile);
  return (~q.median & p.median) | (same_half & ~q.quartile & p.quartile) |
         (same_quarter & ~q.octile & p.octile);
}
// Columns on which q is provably strictly worse than p (q[j] > p[j]).
constexpr Mask worse_columns(const PathLabel& q, const PathLabel& p) noexcept {
  return better_columns(p, q);
}

// One level of the node index (see the file comment).
struct QuadTreeNodes {
  std::vector<Mask> masks;                 // this level's mask of each node
  std::vector<std::uint32_t> first_child;  // masks.size() + 1 offsets into the next level
  std::vector<std::uint32_t>
      first_leaf;  // masks.size() + 1: node k's leaves are [first_leaf[k], first_leaf[k+1])

  std::size_t size() const noexcept { return masks.size(); }
};

// A tree's leaves in leaf order, as a builder made them (see QuadTree::from_leaves).
struct QuadTreeLeaves {
  int dims = 0;
  std::vector<float> pivots;  // 7 per column: median, quartile of each half, octile of each quarter
  std::vector<PointId> ids;   // per leaf position
  std::vector<Mask> median;   // per leaf position (padding is added by from_leaves)
  std::vector<Mask> quartile;
  std::vector<Mask> octile;
  AlignedBuffer<float> rows;  // ids.size() rows of stride (d rounded up to 8) floats, padding zero
};

class QuadTree {
 public:
  static constexpr int levels = 3;

  QuadTree() = default;
  // The tree over `points` (distinct ids of `data`, typically S+; any order), built serially.
  QuadTree(const Dataset& data, std::span<const PointId> points);

  // The same tree, built with parallel_for(count, body): body(i) for every i in [0, count), in any
  // order and on any threads (the bodies of one call touch disjoint data).
  template <class ParallelFor>
  static QuadTree build(const Dataset& data, std::span<const PointId> points, ParallelFor&& parallel_for);

  // The tree from leaves a builder computed elsewhere: checks that they are in leaf order (labels,
  // then ascending id) and consistently sized (Error::internal otherwise), then builds the node index.
  static QuadTree from_leaves(QuadTreeLeaves leaves);

  // Throws Error for ids out of range, too many points or d outside 1..max_skycube_columns.
  static void check_points(const Dataset& data, std::span<const PointId> points);

  int dims() const noexcept { return d_; }
  std::size_t size() const noexcept { return ids_.size(); }
  bool empty() const noexcept { return ids_.empty(); }
  int stride() const noexcept { return stride_; }  // floats per padded row: d rounded up to 8

  // Pivots of column j; half = median bit, quarter = 2 * half + quartile bit.
  float median(int j) const noexcept { return pivots_[pivot_index(j, 0)]; }
  float quartile(int j, int half) const noexcept { return pivots_[pivot_index(j, 1 + half)]; }
  float octile(int j, int quarter) const noexcept { return pivots_[pivot_index(j, 3 + quarter)]; }
  // The path a value vector (d floats, minimisation form) takes through the pivots.
  PathLabel label_of(const float* values) const noexcept;

  // Per leaf position (leaf order).
  std::span<const PointId> ids() const noexcept { return ids_; }
  // The arrays hold label_padding more (zero) entries past size(), so that a SIMD load of the
  // last leaves' labels stays in bounds.
  static constexpr std::size_t label_padding = 16;
  std::span<const Mask> median_masks() const noexcept { return {median_.data(), size()}; }
  std::span<const Mask> quartile_masks() const noexcept { return {quartile_.data(), size()}; }
  std::span<const Mask> octile_masks() const noexcept { return {octile_.data(), size()}; }
  PathLabel label(std::size_t position) const noexcept {
    return {median_[position], quartile_[position], octile_[position]};
  }
  const float* rows() const noexcept { return rows_.data(); }
  const float* row(std::size_t position) const noexcept {
    return rows_.data() + position * static_cast<std::size_t>(stride_);
  }
  // Per column, the smallest value of the tree's points. A point that holds it on every column of
  // m is in m's skyline: no point is strictly below it there.
  std::span<const float> minima() const noexcept { return minima_; }

  // Node index: level 0 (median), 1 (quartile), 2 (octile; children are leaf positions).
  const QuadTreeNodes& nodes(int tree_level) const noexcept { return nodes_[tree_level]; }

 private:
  static std::size_t pivot_index(int j, int slot) noexcept { return static_cast<std::size_t>(j) * 7 + slot; }

  int d_ = 0;
  int stride_ = 0;
  std::vector<float> pivots_;  // 7 per column: median, 2 quartiles, 4 octiles
  std::vector<PointId> ids_;
  std::vector<Mask> median_;
  std::vector<Mask> quartile_;
  std::vector<Mask> octile_;
  AlignedBuffer<float> rows_;
  std::vector<float> minima_;
  QuadTreeNodes nodes_[levels];
};

template <class ParallelFor>
QuadTree QuadTree::build(const Dataset& data, std::span<const PointId> points, ParallelFor&& parallel_for) {
  check_points(data, points);
  const int d = data.dims();
  const std::size_t s = points.size();
  const int stride = (d + 7) / 8 * 8;
  QuadTreeLeaves leaves;
  leaves.dims = d;

  // Pivots, one column per body.
  leaves.pivots.resize(static_cast<std::size_t>(d) * 7);
  parallel_for(static_cast<std::size_t>(d), [&](std::size_t j) {
    std::vector<float> column(s);
    for (std::size_t i = 0; i < s; ++i) column[i] = data(points[i], static_cast<int>(j));
    std::sort(column.begin(), column.end());
    detail::column_pivots(column.data(), s, leaves.pivots.data() + j * 7);
  });

  // Labels, then the leaf order: sort runs of points in parallel, then merge pairs of runs level
  // by level. Keys are unique (ids are distinct), so every order gives the same leaves.
  struct Entry {
    std::uint64_t key;
    PointId id;
    bool operator<(const Entry& o) const noexcept { return key != o.key ? key < o.key : id < o.id; }
  };
  std::vector<Entry> order(s);
  parallel_for(s, [&](std::size_t i) {
    order[i] = {detail::path_key(leaves.pivots.data(), d, data.row(points[i])), points[i]};
  });
  constexpr std::size_t run = 1 << 14;
  const std::size_t runs = (s + run - 1) / run;
  const auto at = [&](std::size_t i) { return order.begin() + static_cast<std::ptrdiff_t>(std::min(s, i)); };
  parallel_for(runs, [&](std::size_t r) { std::sort(at(r * run), at((r + 1) * run)); });
  for (std::size_t width = run; width < s; width *= 2)
    parallel_for((s + 2 * width - 1) / (2 * width), [&](std::size_t k) {
      std::inplace_merge(at(2 * k * width), at((2 * k + 1) * width), at((2 * k + 2) * width));
    });

  // The leaves, one per body.
  leaves.ids.resize(s);
  leaves.median.resize(s);
  leaves.quartile.resize(s);
  leaves.octile.resize(s);
  leaves.rows = AlignedBuffer<float>(s * static_cast<std::size_t>(stride));
  const Mask low = full_mask(d);
  parallel_for(s, [&](std::size_t i) {
    const Entry& e = order[i];
    leaves.ids[i] = e.id;
    leaves.median[i] = static_cast<Mask>(e.key >> (2 * d)) & low;
    leaves.quartile[i] = static_cast<Mask>(e.key >> d) & low;
    leaves.octile[i] = static_cast<Mask>(e.key) & low;
    const float* src = data.row(e.id);
    float* dst = leaves.rows.data() + i * static_cast<std::size_t>(stride);
    for (int j = 0; j < stride; ++j) dst[j] = j < d ? src[j] : 0.0f;
  });
  return from_leaves(std::move(leaves));
}

}  // namespace sextant::skycube
