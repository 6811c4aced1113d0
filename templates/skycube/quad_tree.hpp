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
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/dataset.hpp"
#include "core/subspace.hpp"

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

class QuadTree {
 public:
  static constexpr int levels = 3;

  QuadTree() = default;
  // The tree over `points` (distinct ids of `data`, typically S+; any order).
  QuadTree(const Dataset& data, std::span<const PointId> points);

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
  QuadTreeNodes nodes_[levels];
};

}  // namespace sextant::skycube
