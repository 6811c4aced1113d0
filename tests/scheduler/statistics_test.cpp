#include "scheduler/statistics.hpp"

#include <gtest/gtest.h>

#include "scheduler/scheduler.hpp"
#include "scheduler_test_support.hpp"

namespace sextant::scheduler {
namespace {

using testing::machine;

Statistics sample() {
  Statistics s;
  s.runs = 1;
  s.wall_seconds = 2;
  s.workers = {{0, {DeviceKind::cpu, 0}, 10, 300, 0, 1, 1.5, 2.0, false, {}, {}},
               {1, {DeviceKind::cpu, 0}, 10, 100, 1, 0, 1.0, 1.9, true, {}, {}},
               {2, {DeviceKind::gpu, 0}, 2, 600, 0, 2, 1.8, 2.0, false, {}, {}}};
  s.failures = {{1, {DeviceKind::cpu, 0}, 7, 10, 20, "boom"}};
  return s;
}

TEST(Statistics, DevicesAggregateWorkersAndShares) {
  const auto devices = sample().devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].device, (DeviceId{DeviceKind::cpu, 0}));
  EXPECT_EQ(devices[0].workers, 2);
  EXPECT_EQ(devices[0].retired_workers, 1);
  EXPECT_EQ(devices[0].items, 400u);
  EXPECT_DOUBLE_EQ(devices[0].share, 0.4);
  EXPECT_DOUBLE_EQ(devices[0].busy_seconds, 2.5);
  EXPECT_DOUBLE_EQ(devices[0].finish_seconds, 2.0);
  EXPECT_DOUBLE_EQ(devices[1].share, 0.6);
}

TEST(Statistics, MergeAccumulates) {
  Statistics total;
  total.merge(sample());
  total.merge(sample());
  EXPECT_EQ(total.runs, 2u);
  EXPECT_EQ(total.total_items(), 2000u);
  EXPECT_EQ(total.failures.size(), 2u);
  EXPECT_DOUBLE_EQ(total.wall_seconds, 4.0);
}

TEST(Statistics, ReportIsAPerDeviceTable) {
  Statistics s = sample();
  s.counters.events = {"PAPI_TOT_INS"};
  s.counters.reason = "PAPI_TOT_INS: Event does not exist";
  const std::string text = report(s);
  EXPECT_NE(text.find("device   workers"), std::string::npos) << text;
  EXPECT_NE(text.find("numa0"), std::string::npos) << text;
  EXPECT_NE(text.find(" 40.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu0"), std::string::npos) << text;
  EXPECT_NE(text.find(" 60.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("(1 retired)"), std::string::npos) << text;
  EXPECT_NE(text.find("counters unavailable: PAPI_TOT_INS: Event does not exist"), std::string::npos) << text;
  EXPECT_NE(text.find("numa0 (worker 1), task 7, items [10, 20): boom"), std::string::npos) << text;
  EXPECT_EQ(text.find("worker   device"), std::string::npos);
  EXPECT_NE(report(s, true).find("worker   device"), std::string::npos);
}

TEST(Statistics, ReportShowsCountersWhenAvailable) {
  Statistics s = sample();
  s.counters = {{"PAPI_TOT_INS", "PAPI_L2_TCM"}, true, ""};
  s.workers[0].counters = {1000, 10};
  s.workers[1].counters = {500, 5};
  const std::string text = report(s, true);
  EXPECT_NE(text.find("PAPI_L2_TCM"), std::string::npos) << text;
  EXPECT_NE(text.find("1500"), std::string::npos) << text;  // numa0 summed
  EXPECT_EQ(text.find("counters unavailable"), std::string::npos) << text;
}

TEST(Statistics, UnknownCounterEventsNeverFailARun) {
  // Works on every machine: no PMU has this event, so counters are unavailable and said so.
  SchedulerOptions options;
  options.counter_events = {"SEXTANT_NO_SUCH_EVENT"};
  Scheduler s(machine("package:1 core:2 pu:1"), options);
  EXPECT_FALSE(s.counter_status().available);
  EXPECT_FALSE(s.counter_status().reason.empty());
  Codelet c;
  c.name = "c";
  c.add("", DeviceKind::cpu, [](const Chunk&, const WorkerContext&) {});
  const RunReport r = s.parallel_for(1000, c);
  EXPECT_TRUE(r.complete());
  EXPECT_NE(report(r).find("counters unavailable: "), std::string::npos) << report(r);
}

TEST(Statistics, SchedulerAccumulatesUntilReset) {
  Scheduler s(machine("package:1 core:2 pu:1"));
  Codelet c;
  c.name = "c";
  c.add("", DeviceKind::cpu, [](const Chunk&, const WorkerContext&) {});
  s.parallel_for(1000, c);
  s.parallel_for(500, c);
  EXPECT_EQ(s.statistics().runs, 2u);
  EXPECT_EQ(s.statistics().total_items(), 1500u);
  s.reset_statistics();
  EXPECT_EQ(s.statistics().runs, 0u);
  EXPECT_EQ(s.statistics().workers.size(), 2u);
  EXPECT_EQ(s.statistics().total_items(), 0u);
}

}  // namespace
}  // namespace sextant::scheduler
