// One conformance body for the four applications through the front door (api/pipeline.hpp), run
// per device selection: "cpu" in pipeline_apps_cpu_test.cpp, "gpu0" and "all" in
// pipeline_apps_gpu_test.cpp. Every application against its plain sequential implementation
// (app_references.hpp), for every sizing rule and several merge plans, ordered (the same sequence)
// and unordered (the same multiset); minimum safe budgets, gain 0 and maximal gain, one input, an
// empty input; Taxi's malformed lines.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "api/pipeline.hpp"
#include "apps/pipelines/blast.hpp"
#include "apps/pipelines/nqueens.hpp"
#include "apps/pipelines/synthetic.hpp"
#include "apps/pipelines/taxi.hpp"
#include "core/config.hpp"
#include "pipeline/app_references.hpp"
#include "support/error_of.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/run_request.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace sextant::pipeline::testing {

class PipelineApps : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string devices = GetParam();
    if (devices != "cpu") {
      if (!build::has_cuda) GTEST_SKIP() << "built without CUDA";
      if (sextant::testing::gpu_count() < 1) GTEST_SKIP() << "needs a GPU";
    }
  }

  PipelineOptions options(SizingRule rule, const std::string& merge, bool ordered) const {
    PipelineOptions o;
    o.devices = parse_devices("--devices", GetParam());
    o.sizing = rule;
    o.merge = merge;
    o.ordered = ordered;
    return o;
  }

  bool uses_gpu() const { return std::string(GetParam()) != "cpu"; }
  // The widest vector of the run: the minimum safe sizes must fit it.
  std::uint32_t width() const { return uses_gpu() ? policy::gpu_lanes : resolve_cpu_lanes(0); }
};

template <class T>
std::vector<T> sorted_items(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v;
}

inline apps::synthetic::Config small_synthetic() {
  apps::synthetic::Config c;
  c.sources = 3000;
  c.gains = {0.5, 2.0, 0.4, 1.0};
  c.limits = {1, 4, 2, 1};
  c.work = {1, 3, 0, 2};
  c.seed = 11;
  return c;
}

TEST_P(PipelineApps, SyntheticEveryRuleAndPlan) {
  const apps::synthetic::Config c = small_synthetic();
  const auto instance = apps::synthetic::make_instance(c);
  const std::vector<std::uint64_t> want = synthetic_reference(c);
  ASSERT_GT(want.size(), 1000U);
  for (const SizingRule rule : {SizingRule::equal, SizingRule::mercator, SizingRule::sqrt})
    for (const char* merge : {"none", "1+2,3,4", "1,2+3+4", "1+2+3+4", "auto"})
      for (const bool ordered : {true, false}) {
        const auto r = run_pipeline(instance, options(rule, merge, ordered));
        const std::string what = std::string(to_string(rule)) + " " + merge + (ordered ? " ordered" : "");
        EXPECT_EQ(r.count, want.size()) << what;
        if (ordered || !uses_gpu())
          EXPECT_EQ(r.items, want) << what;
        else
          EXPECT_EQ(sorted_items(r.items), sorted_items(want)) << what;
        if (std::string(merge) != "auto") {
          EXPECT_EQ(r.plan.to_string(), MergePlan::parse(merge, 4).to_string());
        }
      }
}

TEST_P(PipelineApps, SyntheticGainZeroAndMaximalGain) {
  apps::synthetic::Config c = small_synthetic();
  c.sources = 500;
  c.gains = {1.0, 0.0, 1.0, 1.0};  // nothing passes node 2
  auto r = run_pipeline(apps::synthetic::make_instance(c), options(SizingRule::equal, "none", true));
  EXPECT_EQ(r.count, 0U);
  EXPECT_TRUE(r.items.empty());
  c.gains = {1.0, 3.0, 2.0, 1.0};  // every node emits its gain limit: 500 x 1 x 3 x 2 x 1
  c.limits = {1, 3, 2, 1};
  r = run_pipeline(apps::synthetic::make_instance(c), options(SizingRule::sqrt, "1,2+3,4", true));
  EXPECT_EQ(r.count, 3000U);
  EXPECT_EQ(r.items, synthetic_reference(c));
}

TEST_P(PipelineApps, SyntheticAtTheMinimumSafeSizes) {
  const apps::synthetic::Config c = small_synthetic();
  const auto instance = apps::synthetic::make_instance(c);
  const PipelineShape shape = shape_of<apps::synthetic::SyntheticPipeline>(instance.params);
  for (const char* merge : {"none", "1,2+3,4"}) {
    const MergePlan plan = MergePlan::parse(merge, 4);
    std::uint64_t least = 0;
    for (const QueueSpec& q : queue_specs(shape, plan, width(), {})) least += q.min_items * q.item_bytes;
    for (const SizingRule rule : {SizingRule::equal, SizingRule::mercator, SizingRule::sqrt}) {
      PipelineOptions o = options(rule, merge, true);
      o.queue_budget = least;
      const auto r = run_pipeline(instance, o);
      EXPECT_EQ(r.items, synthetic_reference(c)) << merge << " " << to_string(rule);
      // Every queue is exactly its minimum safe size.
      for (const auto& [device, sizes] : r.sizes) {
        if (device.find(std::to_string(width())) == std::string::npos) continue;
        for (std::size_t q = 0; q < sizes.queues.size(); ++q)
          EXPECT_EQ(sizes.capacity[q], sizes.queues[q].min_items);
      }
    }
    PipelineOptions o = options(SizingRule::equal, merge, true);
    o.queue_budget = least - 1;
    const std::string e =
        sextant::testing::error_of([&] { run_pipeline(instance, o); }, ErrorKind::bad_argument);
    EXPECT_NE(e.find("minimum safe"), std::string::npos) << e;
    EXPECT_NE(e.find("the queue after node 1 (gain 1) needs"), std::string::npos) << e;
  }
}

// A profile measured on a GPU is a lock-step one (the merge model then takes each node's maximal
// vector gain); one measured on cores is not. Its per-node counts are the sequential ones.
TEST_P(PipelineApps, ProfileSaysWhetherItsLanesRanInLockStep) {
  const apps::synthetic::Config c = small_synthetic();
  const PipelineProfile p =
      profile_pipeline(apps::synthetic::make_instance(c), options(SizingRule::equal, "none", false));
  EXPECT_EQ(p.lockstep, uses_gpu());
  EXPECT_EQ(p.width, width());
  ASSERT_EQ(p.nodes.size(), 4U);
  const std::vector<std::uint64_t> outputs = synthetic_node_outputs(c);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(p.nodes[k].outputs, outputs[k]) << k;
  const PipelinePlan plan =
      plan_pipeline(apps::synthetic::make_instance(c), options(SizingRule::sqrt, "none", false));
  EXPECT_EQ(plan.profile.lockstep, uses_gpu());
}

TEST_P(PipelineApps, OneInputAndAnEmptyInput) {
  apps::synthetic::Config c = small_synthetic();
  c.sources = 1;
  auto r = run_pipeline(apps::synthetic::make_instance(c), options(SizingRule::sqrt, "auto", true));
  EXPECT_EQ(r.items, synthetic_reference(c));
  c.sources = 0;
  const std::string e = sextant::testing::error_of(
      [&] { run_pipeline(apps::synthetic::make_instance(c), options(SizingRule::equal, "none", false)); },
      ErrorKind::bad_input);
  EXPECT_NE(e.find("empty"), std::string::npos) << e;
}

TEST_P(PipelineApps, NQueensAgainstBacktracking) {
  for (const std::uint32_t n : {1U, 4U, 6U, 8U, 11U, 12U}) {
    const auto problem = apps::nqueens::make_problem(n);
    const auto instance = apps::nqueens::make_instance(problem);
    const auto want = nqueens_reference(n);
    const auto merges = n == 12 ? std::vector<const char*>{"none", "1,2,3,4,5,6,7,8,9+10", "auto"}
                                : std::vector<const char*>{"none", "1+2+3,4,5,6,7,8,9,10"};
    for (const char* merge : merges)
      for (const bool ordered : {true, false}) {
        PipelineOptions o = options(SizingRule::sqrt, merge, ordered);
        o.queue_budget =
            4 << 20;  // merged placement stages have large worst cases (6 x 5 x 4 boards per input)
        const auto r = run_pipeline(instance, o);
        ASSERT_EQ(r.count, want.size()) << n << " " << merge;
        ASSERT_EQ(r.items.size(), want.size());
        // Each board as its columns, row by row: in the reference's (input) order when order was
        // asked for, else compared as multisets (both sides sorted the same way).
        std::vector<std::vector<std::uint32_t>> got, expected = want;
        for (const apps::nqueens::Board& board : r.items) {
          EXPECT_EQ(board.row, n);
          std::vector<std::uint32_t> cols;
          for (std::uint32_t row = 0; row < n; ++row) cols.push_back(apps::nqueens::column_of(board, row));
          got.push_back(std::move(cols));
        }
        if (!ordered) {
          std::sort(got.begin(), got.end());
          std::sort(expected.begin(), expected.end());
        }
        for (std::size_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(got[i], expected[i])
              << "n = " << n << " " << merge << (ordered ? " ordered" : "") << " solution " << i;
      }
  }
}

inline apps::blast::Problem small_blast() {
  apps::blast::GeneratorConfig g;
  g.db_length = 120000;
  g.query_length = 3000;
  g.copies = 30;
  g.copy_length = 300;
  g.mutation_rate = 0.06;
  g.seed = 5;
  apps::blast::Settings s;
  s.k = 8;  // short words: many seeds, repeated words (masked past max_occurrences) and small-extension
            // failures
  s.max_occurrences = 4;
  return apps::blast::generate(g, s);
}

TEST_P(PipelineApps, BlastAgainstBruteForce) {
  const apps::blast::Problem p = small_blast();
  const auto want = blast_reference(p);
  ASSERT_GT(want.size(), 100U);
  for (const SizingRule rule : {SizingRule::equal, SizingRule::mercator, SizingRule::sqrt})
    for (const char* merge : {"none", "1,2+3,4", "1+2,3,4", "1+2+3+4"})
      for (const bool ordered : {true, false}) {
        const auto r = run_pipeline(apps::blast::make_instance(p), options(rule, merge, ordered));
        const std::string what = std::string(to_string(rule)) + " " + merge + (ordered ? " ordered" : "");
        if (ordered || !uses_gpu())
          EXPECT_EQ(r.items, want) << what;
        else
          EXPECT_EQ(sorted_items(r.items), sorted_items(want)) << what;
      }
  EXPECT_EQ(apps::blast::report_hits(want).size(),
            apps::blast::report_hits(
                run_pipeline(apps::blast::make_instance(p), options(SizingRule::sqrt, "auto", false)).items)
                .size());
}

inline std::vector<apps::taxi::LineAggregate> aggregate_reference(const TaxiReference& r, std::size_t lines) {
  std::vector<apps::taxi::LineAggregate> out(lines);
  for (std::size_t l = 0; l < lines; ++l) out[l].line = static_cast<std::uint32_t>(l);
  for (const auto& c : r.items) {
    auto& a = out[c.line];
    a.min_x = a.pairs == 0 ? c.x : std::min(a.min_x, c.x);
    a.max_x = a.pairs == 0 ? c.x : std::max(a.max_x, c.x);
    a.min_y = a.pairs == 0 ? c.y : std::min(a.min_y, c.y);
    a.max_y = a.pairs == 0 ? c.y : std::max(a.max_y, c.y);
    ++a.pairs;
  }
  return out;
}

inline bool coordinate_less(const apps::taxi::Coordinate& a, const apps::taxi::Coordinate& b) {
  if (a.line != b.line) return a.line < b.line;
  if (a.x != b.x) return a.x < b.x;
  return a.y < b.y;
}

TEST_P(PipelineApps, TaxiAgainstStrtod) {
  apps::taxi::GeneratorConfig g;
  g.lines = 400;
  g.seed = 3;
  std::string text = apps::taxi::generate_text(g);
  // Hand-made lines: a 2-pair line, uneven spacing, integers, negative zero, CRLF, 15 digits.
  text +=
      "7,LINESTRING(1 2, 3 4)\r\n8,LINESTRING(  -0.0   10 ,5.5 -6.25,123456789.012345 "
      "0.000001)\n9,LINESTRING(1 1)";
  const auto problem = apps::taxi::parse_lines(text, "taxi.txt");
  const TaxiReference want = taxi_reference(text);
  ASSERT_FALSE(want.first_bad);
  for (const SizingRule rule : {SizingRule::equal, SizingRule::sqrt})
    for (const char* merge : {"none", "1+2,3,4", "1,2,3+4", "1+2+3+4"})
      for (const bool ordered : {true, false}) {
        const auto r = run_pipeline(apps::taxi::make_instance(problem), options(rule, merge, ordered));
        const std::string what = std::string(to_string(rule)) + " " + merge + (ordered ? " ordered" : "");
        std::vector<apps::taxi::Coordinate> got = r.items, expected = want.items;
        if (!ordered && uses_gpu()) {
          std::sort(got.begin(), got.end(), coordinate_less);
          std::sort(expected.begin(), expected.end(), coordinate_less);
        }
        ASSERT_EQ(got.size(), expected.size()) << what;
        EXPECT_TRUE(got == expected) << what;
        const auto agg = apps::taxi::aggregate(problem, r.items);
        const auto agg_want = aggregate_reference(want, problem.body_begin.size());
        ASSERT_EQ(agg.size(), agg_want.size());
        for (std::size_t l = 0; l < agg.size(); ++l) {
          EXPECT_EQ(agg[l].pairs, agg_want[l].pairs) << l;
          EXPECT_EQ(agg[l].min_x, agg_want[l].min_x) << l;
          EXPECT_EQ(agg[l].max_y, agg_want[l].max_y) << l;
        }
      }
}

TEST_P(PipelineApps, TaxiMalformedPairsNameLineAndColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"1,LINESTRING(1 2, 3 4)\n2,LINESTRING(1 2, 3 x4)\n",
       "taxi.txt:2:18: malformed coordinate pair ' 3 x4'"},
      {"1,LINESTRING(1 2,3)\n", "taxi.txt:1:18: malformed coordinate pair '3'"},
      {"1,LINESTRING(1 2,)\n", "taxi.txt:1:14: malformed coordinate pair '1 2'"},
      {"1,LINESTRING(.5 2)\n", "taxi.txt:1:14: malformed"},
      {"1,LINESTRING(1 2, 1234567890123456 1)\n", "taxi.txt:1:18: malformed"},
  };
  for (const auto& [text, want] : cases) {
    const auto problem = apps::taxi::parse_lines(text, "taxi.txt");
    const auto reference = taxi_reference(text);
    ASSERT_TRUE(reference.first_bad) << text;
    const auto r =
        run_pipeline(apps::taxi::make_instance(problem), options(SizingRule::equal, "none", false));
    const std::string e =
        sextant::testing::error_of([&] { apps::taxi::aggregate(problem, r.items); }, ErrorKind::bad_input);
    EXPECT_EQ(e.substr(0, std::string(want).size()), want) << text;
    EXPECT_NE(e.find(std::to_string(reference.first_bad->first) + ":" +
                     std::to_string(reference.first_bad->second)),
              std::string::npos)
        << e;
  }
}

// Every application at the minimum safe queue sizes of the run's widest vector (partial vectors at
// every queue), and with a single source.
TEST_P(PipelineApps, EveryApplicationAtTheMinimumSafeSizesAndWithOneSource) {
  const auto least = [&](const PipelineShape& shape) {
    std::uint64_t bytes = 0;
    for (const QueueSpec& q : queue_specs(shape, MergePlan::unmerged(shape.size()), width(), {}))
      bytes += q.min_items * q.item_bytes;
    return bytes;
  };
  PipelineOptions o = options(SizingRule::sqrt, "none", true);
  const apps::blast::Problem b = small_blast();
  auto blast = apps::blast::make_instance(b);
  o.queue_budget = least(shape_of<apps::blast::BlastPipeline>(blast.params));
  EXPECT_EQ(run_pipeline(blast, o).items, blast_reference(b));
  const auto q = apps::nqueens::make_problem(11);
  const auto queens = apps::nqueens::make_instance(q);
  o.queue_budget = least(shape_of<apps::nqueens::NQueensPipeline>(queens.params));
  EXPECT_EQ(run_pipeline(queens, o).count, nqueens_reference(11).size());
  apps::taxi::GeneratorConfig g;
  g.lines = 300;
  const std::string text = apps::taxi::generate_text(g);
  const auto t = apps::taxi::parse_lines(text, "taxi");
  const auto taxi = apps::taxi::make_instance(t);
  o.queue_budget = least(shape_of<apps::taxi::TaxiPipeline>(taxi.params));
  EXPECT_TRUE(run_pipeline(taxi, o).items == taxi_reference(text).items);
  // One source each: a database of one word, a one-line Taxi file, N-Queens with n = 1.
  o.queue_budget = 0;
  apps::blast::Problem one = b;
  one.db.assign(b.query.begin() + 100, b.query.begin() + 100 + b.settings.k);
  EXPECT_EQ(apps::blast::make_instance(one).sources.count, 1U);
  EXPECT_EQ(run_pipeline(apps::blast::make_instance(one), o).items, blast_reference(one));
  const std::string line = "5,LINESTRING(1.5 2, -3 4.25)";
  const auto t1 = apps::taxi::parse_lines(line, "one");
  EXPECT_TRUE(run_pipeline(apps::taxi::make_instance(t1), o).items == taxi_reference(line).items);
  EXPECT_EQ(run_pipeline(apps::nqueens::make_instance(apps::nqueens::make_problem(1)), o).count, 1U);
}

}  // namespace sextant::pipeline::testing
