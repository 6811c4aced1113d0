// Hardware counters: these need a PMU that PAPI can use. Where PAPI is not built or has no events
// (virtual machines, CI, most containers) every test skips, saying why.
#include "scheduler/counters.hpp"

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

const std::vector<std::string> events = {"PAPI_TOT_INS"};

// Probes on a fresh thread, as a worker would.
std::string unavailable_reason() {
  std::string reason;
  std::thread([&] {
    const detail::CounterSet probe = detail::CounterSet::open(events);
    if (!probe.active()) reason = probe.reason();
  }).join();
  return reason;
}

#define SKIP_WITHOUT_COUNTERS()                                     \
  do {                                                              \
    if (const std::string why = unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "counters unavailable: " << why;              \
  } while (false)

TEST(CounterEvents, ParseCommaSeparatedNames) {
  EXPECT_EQ(parse_counter_events("--counters", "PAPI_TOT_INS,PAPI_L2_TCM"),
            (std::vector<std::string>{"PAPI_TOT_INS", "PAPI_L2_TCM"}));
  EXPECT_TRUE(parse_counter_events("--counters", "").empty());
  EXPECT_THROW(parse_counter_events("--counters", "PAPI_TOT_INS,,PAPI_L2_TCM"), Error);
  EXPECT_THROW(parse_counter_events("--counters", "PAPI TOT"), Error);
}

TEST(Counters, UnavailableCountersSayWhy) {
  const detail::CounterSet none = detail::CounterSet::open({});
  EXPECT_FALSE(none.active());
  if (!build::has_papi) {
    EXPECT_EQ(unavailable_reason(), "this build of Sextant has no PAPI");
  }
}

TEST(Counters, CountInstructionsOnTheCallingThread) {
  SKIP_WITHOUT_COUNTERS();
  detail::CounterSet set = detail::CounterSet::open(events);
  ASSERT_TRUE(set.active());
  set.restart();
  volatile double x = 0;
  for (int i = 0; i < 1'000'000; ++i) x = x + i;
  const auto values = set.read();
  ASSERT_EQ(values.size(), 1u);
  EXPECT_GT(values[0], 1'000'000);
}

TEST(Counters, EveryCpuWorkerReportsItsCounts) {
  SKIP_WITHOUT_COUNTERS();
  SchedulerOptions options;
  options.counter_events = events;
  Scheduler s(discover_topology(), options);
  ASSERT_TRUE(s.counter_status().available) << s.counter_status().reason;
  Codelet c;
  c.name = "count";
  c.add("", DeviceKind::cpu, [](const Chunk& chunk, const WorkerContext&) {
    volatile double x = 0;
    for (std::size_t i = chunk.begin; i < chunk.end; ++i) x = x + static_cast<double>(i);
  });
  WorkStealingPolicy p;
  p.cpu_chunk = 1000;
  const RunReport r = s.parallel_for(4'000'000, c, p);
  for (const WorkerStats& w : r.statistics.workers) {
    if (w.items == 0) continue;
    ASSERT_EQ(w.counters.size(), 1u) << "worker " << w.worker;
    EXPECT_GT(w.counters[0], static_cast<long long>(w.items)) << "worker " << w.worker;
  }
  EXPECT_NE(report(r, true).find("PAPI_TOT_INS"), std::string::npos);
}

}  // namespace
}  // namespace sextant::scheduler
