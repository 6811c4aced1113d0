// The part shared by the lattice-traversal templates STSC and SDSC (paper 004, Section 4.2,
// Algorithms 1 and 2): the extended skyline of the full space, the top-down walk over the
// lattice levels with the parent choice of line 5, and the conversion of the lattice lists into
// a HashCube. The templates differ only in how the cuboids of a level are handed out.
//
// Correctness rests on S_δ(P) ⊆ S+_δ(P) ⊆ S+_δ'(P) for δ ⊂ δ': a cuboid is computed from its
// parents' extended skylines L[δ'] ∪ L+[δ'] (see CandidateRule), never from a parent's skyline
// alone.
//
// HashCube conversion: after each level of at most max_level columns, its skylines are recorded
// as bits in a dense array per point of S+(P) (not per point of P: points outside S+(P) are
// dominated everywhere and stay absent from the cube) with one word per word position that holds
// a subspace of level <= max_level (stored_positions), one task per word position; at the end
// every worker turns a share of those points into a HashCubePart.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/stopwatch.hpp"
#include "core/subspace.hpp"
#include "core/task_team.hpp"
#include "templates/skycube/distinct_points.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/hooks.hpp"
#include "templates/skycube/skycube_options.hpp"

namespace sextant::skycube {

// Optional: an extended-skyline hook that splits S+(P) into S(P) and S+(P) \ S(P) in the same
// pass. The templates then take the full-space cuboid from it instead of recomputing it.
template <class S>
concept ClassifyingExtendedSkylineHook = ExtendedSkylineHook<S> && requires(S& s, const Dataset& data) {
  { s.full_cuboid(data) } -> std::same_as<CuboidOutput>;
};

// Which points a cuboid δ of level l is computed from. Both give the exact S_δ and S+_δ.
enum class CandidateRule {
  // Algorithm 1 / 2, line 6: the parent δ' ⊃ δ with the smallest |L[δ']| + |L+[δ']|.
  smallest_parent,
  // The intersection of L[δ'] ∪ L+[δ'] over every parent δ' (d - l of them): sound because
  // S+_δ(P) ⊆ S+_δ'(P) for every δ' ⊃ δ (a point strictly dominated in δ' is strictly dominated
  // in δ) and every (strict) dominator of a point has one in S_δ(P). Smaller inputs for the same
  // answer: about 25% less work on independent data with d = 11.
  all_parents,
};

namespace detail {

// A worker's scratch for assembling cuboid inputs (reused across cuboids).
struct InputScratch {
  std::vector<PointId> candidates;
  std::vector<std::uint8_t> hits;  // per point of S+(P): parents holding it; all zero between uses
  // Tied candidates (group_ties): per candidate its group, per group its representative, the
  // hash table, and the representatives' output.
  std::vector<std::uint32_t> group;
  std::vector<PointId> representatives;
  std::vector<std::uint32_t> table;
  std::vector<std::uint8_t> status;
  CuboidOutput grouped;
};

// Groups `in.candidates` by their values in in.subspace (equal projections, -0.0 == 0.0):
// scratch.group[i] = the group of candidate i, scratch.representatives = the smallest id of each
// group, ascending. Points with equal values in δ are in S_δ and S+_δ together or not at all.
void group_ties(const CuboidInput& in, InputScratch& scratch);
// `out` for every candidate from scratch.grouped, the output over the representatives.
void expand_ties(const CuboidInput& in, InputScratch& scratch, CuboidOutput& out);

// The lattice lists of the levels in flight, the dense membership bits of the full extended
// skyline and the HashCube conversion. Levels are planned and released top-down; at most two
// levels of lists are alive at a time.
class LatticeRun {
 public:
  // Throws Error for d outside 1..max_skycube_columns or max_level outside 1..d.
  LatticeRun(const Dataset& data, int max_level, CandidateRule rule = CandidateRule::all_parents);

  const Dataset& data() const noexcept { return data_; }
  int dims() const noexcept { return d_; }
  int max_level() const noexcept { return max_level_; }
  // The first level below the top that the walk computes (max_level .. d - 1). A partial skycube
  // computes levels above max_level only while they hold no more cuboids than the levels asked
  // for (they shrink the inputs below); the first level's cuboids are then computed from S+(P),
  // a superset of every S+_δ(P), so the cost follows the subspaces asked for, not 2^d.
  int start_level() const noexcept { return start_; }

  // The full-space cuboid: L[2^d - 1] and L+[2^d - 1]; their union is S+(P).
  void set_top(CuboidOutput top);
  const std::vector<PointId>& extended() const noexcept { return extended_; }

  // The cuboids of level l (< d), each with its parent chosen among level l + 1 (smallest
  // |L| + |L+|, ties to the smaller mask; at start_level(), the full space), largest inputs first.
  const std::vector<Mask>& plan(int l);
  // The input of cuboid δ of the planned level (see CandidateRule), assembled in `scratch`.
  CuboidInput input(Mask subspace, InputScratch& scratch) const;
  CuboidOutput& output(Mask subspace) { return levels_[level(subspace)][rank_[subspace]]; }
  // Whether cuboid δ's candidates surely hold many ties in δ: the product of the distinct values
  // of δ's columns (counted once, up to 2^16 a column) is below twice the candidate count, so
  // group_ties pays (the hook then settles each tied group once instead of pairwise).
  bool tie_heavy(Mask subspace, std::size_t candidates) const noexcept;

  // Records the skylines of level l in the membership bits (no-op above max_level).
  template <TaskTeam T>
  void record_level(int l, T& team) {
    if (l > max_level_ || extended_.empty()) return;
    std::size_t ids = 0;
    for (const CuboidOutput& out : levels_[static_cast<std::size_t>(l)]) ids += out.skyline.size();
    if (ids < serial_record_ids) {  // microseconds: not worth waking the team
      for (std::size_t k = 0; k < positions_.size(); ++k) record_word(l, k);
      return;
    }
    team.run_tasks(positions_.size(), [&](std::size_t k, int) { record_word(l, k); });
  }
  // Frees the lists of level l once level l - 1 is computed.
  void release(int l);

  // Builds the HashCube from the membership bits, one HashCubePart per task.
  template <TaskTeam T>
  HashCube build_cube(T& team) {
    const std::size_t tasks = std::max<std::size_t>(
        1, std::min<std::size_t>(static_cast<std::size_t>(team.workers()), (extended_.size() + 1023) / 1024));
    std::vector<HashCubePart> parts(tasks);
    team.run_tasks(tasks, [&](std::size_t task, int) { fill_part(task, tasks, parts[task]); });
    return finish_cube(std::move(parts), team);
  }

 private:
  static constexpr std::size_t serial_record_ids = 16384;
  void record_word(int l, std::size_t k);  // word position positions_[k]
  void fill_part(std::size_t task, std::size_t tasks, HashCubePart& part) const;
  HashCube finish_cube(std::vector<HashCubePart> parts, TeamRef team);  // merges on the team

  const Dataset& data_;
  int d_;
  int max_level_;
  CandidateRule rule_;
  int start_;
  std::vector<std::uint32_t> positions_;           // the cube's word positions that a level <= max_level has
  std::vector<PointId> extended_;                  // S+(P), ascending
  std::vector<std::uint32_t> position_;            // id -> position in extended_
  std::vector<std::uint64_t> distinct_values_;     // per column, saturated at 2^16 + 1
  std::vector<Word> members_;  // per point of S+, a word per positions_ entry: bit (m-1) % 32 = in S_m
  std::vector<std::vector<CuboidOutput>> levels_;  // [level][rank within level]
  std::vector<std::vector<Mask>> parents_;         // [level][rank]
  std::vector<std::uint32_t> rank_;                // mask -> rank within its level
  std::vector<Mask> order_;                        // the planned level, largest input first
};

// Cuboid `subspace` of the planned level with `hook`, its input assembled in the worker's scratch.
// If anything throws, the scratch is reset (its counts may be left set) before the exception goes
// on, so that a team may run the task again, here or on another worker.
// Tie-heavy cuboids (LatticeRun::tie_heavy) go to the hook as one representative per group of
// equal projections, the output expanded to every member.
template <CuboidHook C>
void compute_cuboid(C& hook, LatticeRun& run, Mask subspace, InputScratch& scratch) {
  try {
    const CuboidInput in = run.input(subspace, scratch);
    if (!run.tie_heavy(subspace, in.candidates.size())) {
      hook.compute(in, run.output(subspace));
      return;
    }
    group_ties(in, scratch);
    if (scratch.representatives.size() == in.candidates.size()) {
      hook.compute(in, run.output(subspace));
      return;
    }
    hook.compute(CuboidInput{in.data, scratch.representatives, subspace}, scratch.grouped);
    expand_ties(in, scratch, run.output(subspace));
  } catch (...) {
    scratch = InputScratch{};
    throw;
  }
}

// The flow of Algorithms 1 and 2. `top(input, output)` computes the full-space cuboid when the
// extended-skyline hook cannot split it; `run_level(run, masks)` computes every cuboid of a
// level (output(δ) from input(δ)) and returns when all are done.
template <ExtendedSkylineHook X, TaskTeam Host, class Top, class RunLevel>
SkycubeResult run_lattice(std::string name, const Dataset& data, int max_level, CandidateRule rule,
                          X& extended, Host& host, Top&& top, RunLevel&& run_level) {
  SkycubeResult result;
  result.template_name = std::move(name);
  Stopwatch clock;
  // Every step below sees one point per distinct vector (timed with the extended skyline).
  const DistinctPoints distinct(data, host);
  const Dataset& points = distinct.data();
  LatticeRun run(points, max_level, rule);
  const int d = run.dims();

  if constexpr (ClassifyingExtendedSkylineHook<X>) {
    run.set_top(extended.full_cuboid(points));
  } else {
    const std::vector<PointId> ids = extended.extended_skyline(points);
    CuboidOutput out;
    top(CuboidInput{points, ids, full_mask(d)}, out);
    run.set_top(std::move(out));
  }
  result.extended_skyline_size = distinct.original_count(run.extended());
  result.phases.add("extended skyline", clock.seconds());

  clock.restart();
  run.record_level(d, host);
  for (int l = run.start_level(); l >= 1; --l) {
    const std::vector<Mask>& masks = run.plan(l);
    run_level(run, std::span<const Mask>(masks));
    run.record_level(l, host);
    run.release(l == run.start_level() ? d : l + 1);
  }
  run.release(1);
  result.phases.add("lattice", clock.seconds());

  clock.restart();
  result.cube = distinct.expand(run.build_cube(host), host);
  result.phases.add("hashcube", clock.seconds());
  return result;
}

}  // namespace detail
}  // namespace sextant::skycube
