// One test body for every builder of MDMC's quad tree (QuadTree's serial constructor,
// cpu::QuadTreeCpu, gpu::QuadTreeGpu): each tree is checked against the definition in
// quad_tree.hpp (labels from the pivots, leaf order, node index, exact inference rules) and, field
// by field, against the serial builder's tree, on data with ties and duplicate rows.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "templates/skycube/quad_tree.hpp"
#include "testing/random_data.hpp"

namespace sextant::testing {

using skycube::PathLabel;
using skycube::QuadTree;
using skycube::QuadTreeNodes;

using QuadTreeBuilder = std::function<QuadTree(const Dataset&, std::span<const PointId>)>;

// The label of `values` straight from the definition in quad_tree.hpp.
inline PathLabel expected_label(const QuadTree& tree, const float* values) {
  PathLabel l;
  for (int j = 0; j < tree.dims(); ++j) {
    const float v = values[j];
    const int half = v >= tree.median(j);
    const int quartile = v >= tree.quartile(j, half);
    const int octile = v >= tree.octile(j, 2 * half + quartile);
    l.median |= Mask(half) << j;
    l.quartile |= Mask(quartile) << j;
    l.octile |= Mask(octile) << j;
  }
  return l;
}

// Every structural invariant of `tree`, built over `ids` of `data`. The pairwise check of the
// inference rules is quadratic: it runs on trees of at most 600 leaves.
inline void check_invariants(const QuadTree& tree, const Dataset& data, std::span<const PointId> ids) {
  const int d = data.dims();
  ASSERT_EQ(tree.size(), ids.size());
  ASSERT_EQ(tree.stride(), (d + 7) / 8 * 8);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(tree.rows()) % 32, 0u);

  // Same ids, leaf order = (median, quartile, octile, id).
  std::vector<PointId> sorted_in(ids.begin(), ids.end());
  std::vector<PointId> sorted_tree(tree.ids().begin(), tree.ids().end());
  std::sort(sorted_in.begin(), sorted_in.end());
  std::sort(sorted_tree.begin(), sorted_tree.end());
  EXPECT_EQ(sorted_tree, sorted_in);
  auto key = [&](std::size_t i) {
    return std::tuple(tree.median_masks()[i], tree.quartile_masks()[i], tree.octile_masks()[i],
                      tree.ids()[i]);
  };
  for (std::size_t i = 1; i < tree.size(); ++i) EXPECT_LT(key(i - 1), key(i)) << "leaf " << i;

  // Labels follow the pivots; rows are padded copies.
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const PointId id = tree.ids()[i];
    EXPECT_EQ(tree.label(i), expected_label(tree, data.row(id))) << "leaf " << i;
    EXPECT_EQ(tree.label(i), tree.label_of(data.row(id)));
    for (int j = 0; j < tree.stride(); ++j) EXPECT_EQ(tree.row(i)[j], j < d ? data(id, j) : 0.0f);
  }

  // Pivots ascend per column (within parts that hold points: an empty part's pivot is unused).
  for (int j = 0; j < d; ++j) {
    EXPECT_LE(tree.quartile(j, 0), tree.median(j));
    EXPECT_LE(tree.median(j), tree.quartile(j, 1));
  }

  // Node index: contiguous ranges covering the level below, masks equal to the leaves'.
  const QuadTreeNodes* levels[3] = {&tree.nodes(0), &tree.nodes(1), &tree.nodes(2)};
  for (int lvl = 0; lvl < 3; ++lvl) {
    const QuadTreeNodes& n = *levels[lvl];
    const std::size_t below = lvl == 2 ? tree.size() : levels[lvl + 1]->size();
    ASSERT_EQ(n.first_child.size(), n.size() + 1);
    EXPECT_EQ(n.first_child.front(), 0u);
    EXPECT_EQ(n.first_child.back(), below);
    for (std::size_t k = 0; k < n.size(); ++k) EXPECT_LT(n.first_child[k], n.first_child[k + 1]);
    ASSERT_EQ(n.first_leaf.size(), n.size() + 1);
    for (std::size_t k = 0; k <= n.size(); ++k) {
      std::size_t leaf = k;  // follow first children down to the leaves
      for (int below_level = lvl; below_level < 3; ++below_level)
        leaf = levels[below_level]->first_child[leaf];
      EXPECT_EQ(n.first_leaf[k], leaf) << "level " << lvl << " node " << k;
    }
  }
  // Walk down and compare every node's mask with the leaves under it.
  for (std::size_t a = 0; a < levels[0]->size(); ++a)
    for (auto b = levels[0]->first_child[a]; b < levels[0]->first_child[a + 1]; ++b)
      for (auto c = levels[1]->first_child[b]; c < levels[1]->first_child[b + 1]; ++c) {
        for (auto leaf = levels[2]->first_child[c]; leaf < levels[2]->first_child[c + 1]; ++leaf) {
          EXPECT_EQ(tree.median_masks()[leaf], levels[0]->masks[a]);
          EXPECT_EQ(tree.quartile_masks()[leaf], levels[1]->masks[b]);
          EXPECT_EQ(tree.octile_masks()[leaf], levels[2]->masks[c]);
        }
        // Distinct paths: the next node differs.
        if (c + 1 < levels[2]->size()) {
          const std::size_t first = levels[2]->first_child[c];
          const std::size_t next = levels[2]->first_child[c + 1];
          EXPECT_NE(tree.label(first), tree.label(next));
        }
      }

  // The inference rules are exact: a label-derived relation never contradicts the values.
  if (tree.size() > 600) return;
  for (std::size_t a = 0; a < tree.size(); ++a)
    for (std::size_t b = 0; b < tree.size(); ++b) {
      const Mask better = better_columns(tree.label(a), tree.label(b));
      const Mask worse = worse_columns(tree.label(a), tree.label(b));
      EXPECT_EQ(better & worse, 0u);
      EXPECT_EQ(better & ~full_mask(d), 0u);
      for (int j = 0; j < d; ++j) {
        if ((better >> j) & 1) {
          EXPECT_LT(tree.row(a)[j], tree.row(b)[j]) << a << " vs " << b << " column " << j;
        }
        if ((worse >> j) & 1) {
          EXPECT_GT(tree.row(a)[j], tree.row(b)[j]) << a << " vs " << b << " column " << j;
        }
      }
    }
}

// The same tree, field by field (pivots compared as values: -0 equals +0).
inline void expect_same_tree(const QuadTree& got, const QuadTree& want) {
  ASSERT_EQ(got.dims(), want.dims());
  ASSERT_EQ(got.size(), want.size());
  for (int j = 0; j < want.dims(); ++j) {
    EXPECT_EQ(got.median(j), want.median(j)) << "column " << j;
    for (int h = 0; h < 2; ++h) EXPECT_EQ(got.quartile(j, h), want.quartile(j, h)) << "column " << j;
    for (int q = 0; q < 4; ++q) EXPECT_EQ(got.octile(j, q), want.octile(j, q)) << "column " << j;
  }
  EXPECT_TRUE(std::equal(got.ids().begin(), got.ids().end(), want.ids().begin()));
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got.label(i), want.label(i)) << "leaf " << i;
    ASSERT_TRUE(std::equal(got.row(i), got.row(i) + want.stride(), want.row(i))) << "leaf " << i;
  }
  for (int lvl = 0; lvl < QuadTree::levels; ++lvl) {
    EXPECT_EQ(got.nodes(lvl).masks, want.nodes(lvl).masks) << "level " << lvl;
    EXPECT_EQ(got.nodes(lvl).first_child, want.nodes(lvl).first_child) << "level " << lvl;
    EXPECT_EQ(got.nodes(lvl).first_leaf, want.nodes(lvl).first_leaf) << "level " << lvl;
  }
}

// The tree `build` makes over `ids`: checked against the definition and the serial builder.
inline QuadTree check_builder(const QuadTreeBuilder& build, const Dataset& data,
                              std::span<const PointId> ids) {
  QuadTree tree = build(data, ids);
  check_invariants(tree, data, ids);
  expect_same_tree(tree, QuadTree(data, ids));
  return tree;
}

inline void run_quad_tree_conformance(const QuadTreeBuilder& build) {
  for (int d : {1, 2, 3, 5, 8, 9, 12, 16, 20}) {
    SCOPED_TRACE("random, d=" + std::to_string(d));
    const Dataset data = random_dataset(300, d, 0, 7 + static_cast<std::uint64_t>(d));
    check_builder(build, data, all_ids(data));
  }
  for (int levels : {2, 3, 5, 9}) {
    SCOPED_TRACE("ties, levels=" + std::to_string(levels));
    const Dataset data = random_dataset(250, 4, levels, 100 + static_cast<std::uint64_t>(levels));
    check_builder(build, data, all_ids(data));
  }
  {
    SCOPED_TRACE("a subset of the points in descending order");
    const Dataset data = random_dataset(200, 3, 6, 5);
    std::vector<PointId> ids;
    for (PointId i = 199;; i -= 3) {
      ids.push_back(i);
      if (i < 3) break;
    }
    check_builder(build, data, ids);
  }
  {
    SCOPED_TRACE("more leaves than one sorted run, ties and duplicates");
    const Dataset data = random_dataset(40000, 7, 5, 11);
    check_builder(build, data, all_ids(data));
  }
  {
    // Column values 0,0,0,1: the middle value equals the smallest, so the pivot moves up to 1 and
    // the column still splits; a value equal to a pivot is in the upper part.
    SCOPED_TRACE("values equal to a pivot go up");
    const Dataset data(4, 1, std::vector<float>{0, 0, 0, 1});
    const QuadTree tree = check_builder(build, data, all_ids(data));
    EXPECT_EQ(tree.median(0), 1.0f);
    for (std::size_t i = 0; i < 4; ++i)
      EXPECT_EQ(tree.median_masks()[i], data(tree.ids()[i], 0) >= 1.0f ? 1u : 0u);
    EXPECT_EQ(tree.ids()[3], 3u);  // the 1 is the last leaf; the zeros precede it in id order
    EXPECT_EQ(tree.nodes(0).size(), 2u);
  }
  {
    SCOPED_TRACE("every value equal: nothing splits, nothing is inferred");
    const Dataset flat(5, 2, std::vector<float>(10, 0.5f));
    const QuadTree tree = check_builder(build, flat, all_ids(flat));
    EXPECT_EQ(tree.nodes(2).size(), 1u);
    EXPECT_EQ(skycube::better_columns(tree.label(0), tree.label(4)), 0u);
  }
  {
    SCOPED_TRACE("two distinct values always split");  // middle value 2: 1,1 left, 2,2,2 right
    const Dataset data(5, 1, std::vector<float>{2, 1, 2, 1, 2});
    const QuadTree tree = check_builder(build, data, all_ids(data));
    EXPECT_EQ(tree.median(0), 2.0f);
    EXPECT_EQ(skycube::better_columns(tree.label(0), tree.label(4)), 1u);  // a 1 before a 2
  }
  {
    SCOPED_TRACE("no points");
    const Dataset data = random_dataset(10, 3, 0, 1);
    const QuadTree tree = build(data, {});
    EXPECT_TRUE(tree.empty());
    for (int lvl = 0; lvl < 3; ++lvl) {
      EXPECT_EQ(tree.nodes(lvl).size(), 0u);
      EXPECT_EQ(tree.nodes(lvl).first_child.size(), 1u);
      EXPECT_EQ(tree.nodes(lvl).first_leaf.size(), 1u);
    }
  }
  {
    SCOPED_TRACE("bad points");
    const Dataset data = random_dataset(10, 3, 0, 1);
    const std::vector<PointId> out_of_range = {1, 10};
    EXPECT_THROW(build(data, out_of_range), Error);
  }
}

}  // namespace sextant::testing
