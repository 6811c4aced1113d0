// Hardware counters: these need a PMU that PAPI can use. Where PAPI is not built or has no events
// (virtual machines, CI, most containers) every test skips, saying why.
#include "scheduler/counters.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "core/config.hpp"
#include "core/error.hpp"
#include "scheduler/papi_library.hpp"
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

TEST(Counters, NoCountersAndUnknownEventsAreToldApart) {
  using detail::event_failure_message;
  const std::string unknown =
      event_failure_message("PAPI_FOO", true, "Event does not exist", 8, "", 1, false);
  EXPECT_EQ(unknown,
            "PAPI_FOO: unknown event on this machine: Event does not exist (papi_avail and "
            "papi_native_avail list the events it has)");
  const std::string vm = event_failure_message("PAPI_TOT_INS", true, "Event does not exist", 0, "", 1, true);
  EXPECT_NE(vm.find("this machine exposes no hardware counters"), std::string::npos) << vm;
  EXPECT_NE(vm.find("virtual machine"), std::string::npos) << vm;
  EXPECT_EQ(vm.find("unknown event"), std::string::npos) << vm;
  const std::string paranoid = event_failure_message("PAPI_TOT_INS", true, "x", 0, "", 3, false);
  EXPECT_NE(paranoid.find("kernel.perf_event_paranoid is 3 (counters need 2 or less, or CAP_PERFMON)"),
            std::string::npos)
      << paranoid;
  const std::string disabled =
      event_failure_message("PAPI_TOT_INS", false, "x", -1, "Insufficient permissions", 2, false);
  EXPECT_NE(disabled.find("PAPI's CPU component is disabled: Insufficient permissions"), std::string::npos)
      << disabled;
  EXPECT_EQ(event_failure_message("PAPI_TOT_INS", false, "Busy", 4, "", 1, false), "PAPI_TOT_INS: Busy");
}

// Sets (or, with nullopt, unsets) the PAPI library variable for one test, then restores it.
class ScopedPapiVariable {
 public:
  explicit ScopedPapiVariable(std::optional<std::string> value) {
    if (const char* old = std::getenv(detail::papi_library_variable)) old_ = old;
    if (value) {
      ::setenv(detail::papi_library_variable, value->c_str(), 1);
    } else {
      ::unsetenv(detail::papi_library_variable);
    }
  }
  ~ScopedPapiVariable() {
    if (old_) {
      ::setenv(detail::papi_library_variable, old_->c_str(), 1);
    } else {
      ::unsetenv(detail::papi_library_variable);
    }
  }
  ScopedPapiVariable(const ScopedPapiVariable&) = delete;
  ScopedPapiVariable& operator=(const ScopedPapiVariable&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(PapiLibrary, CandidatesStartWithTheDevelopmentLinkThenThisBuildsVersion) {
  const ScopedPapiVariable unset(std::nullopt);
  const std::vector<std::string> names = detail::papi_library_candidates(7, 1);
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names[0], "libpapi.so");
  EXPECT_EQ(names[1], "libpapi.so.7.1");
  EXPECT_EQ(names[2], "libpapi.so.7");
  for (const char* name : {"libpapi.so.7.0", "libpapi.so.7.2", "libpapi.so.6", "libpapi.so.6.0"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a name is tried twice";
}

TEST(PapiLibrary, TheEnvironmentVariableNamesTheOnlyLibrary) {
  const ScopedPapiVariable set("/opt/papi/lib/libpapi.so");
  EXPECT_EQ(detail::papi_library_candidates(7, 0), std::vector<std::string>{"/opt/papi/lib/libpapi.so"});
  const ScopedPapiVariable empty("");  // empty = not set
  EXPECT_EQ(detail::papi_library_candidates(7, 0).front(), "libpapi.so");
}

TEST(PapiLibrary, LoadFailureGivesTheLoadersMessageAndNamesTheOthersTried) {
  const std::vector<std::string> names = {"/nonexistent/libpapi.so",      "libsextant-no-such-papi.so.1",
                                          "libsextant-no-such-papi.so.2", "libsextant-no-such-papi.so.3",
                                          "libsextant-no-such-papi.so.4", "libsextant-no-such-papi.so.5"};
  const detail::LoadedLibrary lib = detail::load_first_library(names);
  EXPECT_EQ(lib.handle, nullptr);
  EXPECT_NE(lib.error.find("/nonexistent/libpapi.so"), std::string::npos) << lib.error;
  EXPECT_NE(lib.error.find("No such file"), std::string::npos) << lib.error;  // dlerror's own words
  EXPECT_NE(lib.error.find("also tried libsextant-no-such-papi.so.1, libsextant-no-such-papi.so.2, "
                           "libsextant-no-such-papi.so.3 and 2 other names"),
            std::string::npos)
      << lib.error;
  EXPECT_EQ(detail::load_first_library({}).error, "no library to load");
}

TEST(PapiLibrary, LoadsTheFirstCandidateThatExists) {
  const std::vector<std::string> names = {"libsextant-no-such-papi.so", "libc.so.6", "libm.so.6"};
  const detail::LoadedLibrary lib = detail::load_first_library(names);
  EXPECT_NE(lib.handle, nullptr) << lib.error;
  EXPECT_EQ(lib.name, "libc.so.6");
  EXPECT_TRUE(lib.error.empty()) << lib.error;
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
