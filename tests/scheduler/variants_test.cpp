// Variants as data: a codelet lists implementations; the scheduler measures each on every worker
// that can run it, keeps the fastest, remembers the choice for the next run and reports it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "core/error.hpp"
#include "scheduler/job.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::Hits;
using testing::machine;
using testing::spin_for;

const VariantStats* find(const std::vector<VariantStats>& v, const std::string& name) {
  for (const VariantStats& s : v)
    if (s.name == name) return &s;
  return nullptr;
}

struct Fixture {
  static constexpr std::size_t n = 4000;
  Hits hits{n};
  std::atomic<std::size_t> never_ran{0};
  Codelet codelet;

  Fixture() {
    codelet.name = "variants";
    // Listed first, so it is tried first; 50x slower per item than "fast".
    codelet.add("slow", DeviceKind::cpu, [this](const Chunk& c, const WorkerContext&) {
      spin_for(std::chrono::microseconds(100) * c.size());
      hits.add(c.begin, c.end);
    });
    codelet.add("fast", DeviceKind::cpu, [this](const Chunk& c, const WorkerContext&) {
      spin_for(std::chrono::microseconds(2) * c.size());
      hits.add(c.begin, c.end);
    });
    codelet.add(
        "unavailable", DeviceKind::cpu, [this](const Chunk&, const WorkerContext&) { ++never_ran; },
        [](const WorkerInfo&) { return false; });  // e.g. an instruction set this CPU lacks
  }
};

WorkStealingPolicy chunks_of(std::size_t items) {
  WorkStealingPolicy p;
  p.cpu_chunk = items;
  return p;
}

TEST(Variants, TheSlowVariantIsAbandonedAfterItsTrials) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  Fixture f;
  const RunReport r = s.parallel_for(Fixture::n, f.codelet, chunks_of(20));
  EXPECT_EQ(f.hits.wrong(), 0u);
  EXPECT_EQ(f.never_ran.load(), 0u);
  std::size_t slow_items = 0;
  std::size_t fast_items = 0;
  for (const WorkerStats& w : r.statistics.workers) {
    const VariantStats* slow = find(w.variants, "slow");
    const VariantStats* fast = find(w.variants, "fast");
    EXPECT_EQ(find(w.variants, "unavailable"), nullptr);
    if (slow != nullptr) {
      EXPECT_LE(slow->tasks, detail::variant_trials) << "worker " << w.worker;
      slow_items += slow->items;
    }
    if (fast != nullptr) fast_items += fast->items;
  }
  EXPECT_EQ(slow_items + fast_items, Fixture::n);
  EXPECT_GT(fast_items, 10 * slow_items);
  const std::string table = report(r.statistics, true);
  EXPECT_NE(table.find("fast"), std::string::npos) << table;
}

TEST(Variants, AnEarlierRunsMeasurementsAreRemembered) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  Fixture first;
  s.parallel_for(Fixture::n, first.codelet, chunks_of(20));
  Fixture second;  // same codelet name: the rates of "slow" and "fast" are known
  const RunReport r = s.parallel_for(Fixture::n, second.codelet, chunks_of(20));
  EXPECT_EQ(second.hits.wrong(), 0u);
  for (const WorkerStats& w : r.statistics.workers) {
    EXPECT_EQ(find(w.variants, "slow"), nullptr) << "worker " << w.worker << " tried slow again";
    const VariantStats* fast = find(w.variants, "fast");
    EXPECT_TRUE(w.items == 0 || (fast != nullptr && fast->items == w.items)) << "worker " << w.worker;
  }
}

TEST(Variants, AFallbackRunsOnlyWhereNothingElseCan) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  for (const bool simd_here : {true, false}) {
    Hits hits(1000);
    Codelet c;
    c.name = simd_here ? "with-simd" : "without-simd";
    c.add(
        "simd", DeviceKind::cpu, [&](const Chunk& chunk, const WorkerContext&) { hits.add(chunk.begin, chunk.end); },
        [simd_here](const WorkerInfo&) { return simd_here; });
    c.add(
        "scalar", DeviceKind::cpu, [&](const Chunk& chunk, const WorkerContext&) { hits.add(chunk.begin, chunk.end); },
        {}, /*fallback=*/true);
    const RunReport r = s.parallel_for(1000, c, chunks_of(10));
    EXPECT_EQ(hits.wrong(), 0u);
    for (const WorkerStats& w : r.statistics.workers) {
      EXPECT_EQ(find(w.variants, simd_here ? "scalar" : "simd"), nullptr) << c.name << " worker " << w.worker;
    }
  }
}

TEST(Variants, AVariantNoWorkerCanRunIsAnError) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  Codelet c;
  c.name = "nowhere";
  c.add(
      "needs-a-feature", DeviceKind::cpu, [](const Chunk&, const WorkerContext&) {},
      [](const WorkerInfo&) { return false; });
  try {
    s.parallel_for(100, c, chunks_of(10), RunOptions{FailureMode::propagate});
    ADD_FAILURE() << "ran a codelet no worker can run";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("no variant runs on any of them (variants: needs-a-feature for cpu"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sextant::scheduler
