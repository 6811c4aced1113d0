// One conformance body for every replica hook (the CPU replica, the GPU's block replicas): the test
// pipelines of test_pipelines.hpp with every merge plan, every sizing rule, minimum safe and larger
// budgets, ordered and unordered, chunks in the middle, empty and single, against plain loops; and the
// gain-limit errors naming the node. `Make` is make(instance, options) -> a hook with run(begin,
// end, out); `width` the hook's lanes; `keeps_order` whether it keeps order unasked (the CPU does).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/test_pipelines.hpp"
#include "support/error_of.hpp"
#include "templates/pipeline/run_request.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::testing {

inline Instance<FanPipeline> fan_instance(std::uint64_t sources, std::uint32_t shift, std::uint32_t seed) {
  Instance<FanPipeline> in;
  in.params.get<1>().shift = shift;
  in.params.get<2>().seed = seed;
  in.sources = {nullptr, sources};
  return in;
}

inline std::uint64_t min_budget(const PipelineShape& shape, const MergePlan& plan, std::uint32_t width) {
  std::uint64_t bytes = 0;
  for (const QueueSpec& q : queue_specs(shape, plan, width, {})) bytes += q.min_items * q.item_bytes;
  return bytes;
}

template <class T>
std::vector<T> sorted(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v;
}

template <class P, class Make>
ChunkOutput<typename P::Output> run_replica(Make& make, const Instance<P>& in, const RunRequest& request,
                                            std::uint32_t width, std::uint64_t begin, std::uint64_t end,
                                            bool ordered = true, bool collect = true) {
  ReplicaOptions options;
  options.layout = plan_layout(shape_of<P>(in.params), request, width).layout;
  options.ordered = ordered;
  options.collect = collect;
  auto hook = make(in, options);
  ChunkOutput<typename P::Output> out;
  hook.run(begin, end, out);
  return out;
}

template <class Make>
void every_plan_rule_and_budget(Make make, std::uint32_t width, bool keeps_order, std::uint64_t sources) {
  const Instance<FanPipeline> in = fan_instance(sources, 5, 3);
  const PipelineShape shape = shape_of<FanPipeline>(in.params);
  const std::vector<std::uint64_t> want = fan_reference(0, static_cast<std::uint32_t>(sources), 5, 3);
  ASSERT_GT(want.size(), sources);
  for (const MergePlan& plan : MergePlan::all(FanPipeline::size))
    for (const SizingRule rule : {SizingRule::equal, SizingRule::mercator, SizingRule::sqrt}) {
      const std::uint64_t least = min_budget(shape, plan, width);
      for (const std::uint64_t budget : {least, least + 40, least * 3 + 8})
        for (const bool ordered : {true, false}) {
          RunRequest r;
          r.merge = plan;
          r.sizing = rule;
          r.queue_budget = std::max<std::uint64_t>(budget, 1);
          r.gains = {1.5, 0.6, 2.0, 1.0};
          const auto out = run_replica(make, in, r, width, 0, sources, ordered);
          const std::string what = plan.to_string() + " " + std::string(to_string(rule)) + " budget " +
                                   std::to_string(budget) + (ordered ? " ordered" : "");
          if (ordered || keeps_order)
            ASSERT_EQ(out.items, want) << what;
          else
            ASSERT_EQ(sorted(out.items), sorted(want)) << what;
          EXPECT_EQ(out.count, want.size()) << what;
          EXPECT_GT(out.counters.switches, 0U) << what;
        }
    }
}

template <class Make>
void chunks_empty_and_single(Make make, std::uint32_t width) {
  const Instance<FanPipeline> in = fan_instance(100, 1, 7);
  RunRequest r;
  r.merge = MergePlan::parse("1,2+3,4", 4);
  for (const auto& [b, e] :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 0}, {37, 38}, {3, 4}, {4, 5}, {50, 100}}) {
    const auto out = run_replica(make, in, r, width, b, e);
    EXPECT_EQ(out.items,
              fan_reference(static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e - b), 1, 7))
        << b << ".." << e;
    EXPECT_EQ(out.count, out.items.size());
  }
  // Source 4 (4 % 4 == 0) has gain 0 at the first node: nothing reaches the sink.
  EXPECT_TRUE(run_replica(make, in, r, width, 4, 5).items.empty());
  // Counting only.
  const auto counted = run_replica(make, in, r, width, 0, 100, false, false);
  EXPECT_TRUE(counted.items.empty());
  EXPECT_EQ(counted.count, fan_reference(0, 100, 1, 7).size());
}

template <class P, class Make>
std::string run_error(Make& make, const MergePlan& plan, std::uint64_t sources, std::uint32_t width) {
  Instance<P> in;
  in.sources = {nullptr, sources};
  RunRequest r;
  r.merge = plan;
  return sextant::testing::error_of([&] { run_replica(make, in, r, width, 0, sources); },
                                    ErrorKind::bad_input);
}

template <class MakeLiar, class MakeUneven>
void gain_limit_errors_name_the_node(MakeLiar liar, MakeUneven uneven, std::uint32_t width) {
  for (const char* plan : {"none", "1+2,3", "1,2+3", "1+2+3"}) {
    const std::string e = run_error<LiarPipeline>(liar, MergePlan::parse(plan, 3), 10, width);
    EXPECT_NE(e.find("node 2 (liar)"), std::string::npos) << plan << ": " << e;
    EXPECT_NE(e.find("gain limit of 3"), std::string::npos) << e;
  }
  // Without the offending source (2) the same pipeline runs: 0 is filtered; 1 -> 2 -> {2, 3, 4} ->
  // {3, 5} (3 is a multiple of 3).
  Instance<LiarPipeline> in;
  in.sources = {nullptr, 2};
  EXPECT_EQ(run_replica(liar, in, RunRequest{}, width, 0, 2).items, (std::vector<std::uint32_t>{3, 5}));
  const std::string e = run_error<UnevenPipeline>(uneven, MergePlan::parse("none", 2), 5, width);
  EXPECT_NE(e.find("node 1 (uneven)"), std::string::npos) << e;
  EXPECT_NE(e.find("exactly 2"), std::string::npos) << e;
}

}  // namespace sextant::pipeline::testing
