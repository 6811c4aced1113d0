// The Matcher front door (api/matcher.hpp) on the CPU: the conformance body in throughput mode
// (one, two and every core) and in latency mode (one event at a time on the calling thread), then
// what only the front door does: changes from other threads while batches run (a batch sees a
// change whole or not at all), validation, devices this build or machine lacks.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "api/matcher.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "scheduler/topology.hpp"
#include "tests/matching/matching_conformance.hpp"
#include "tests/support/error_of.hpp"

namespace sextant::testing {
namespace {

using namespace sextant::matching;

class ApiMatcher : public MatcherUnderTest {
 public:
  ApiMatcher(MatcherOptions options, bool one_at_a_time) : matcher_(options), one_at_a_time_(one_at_a_time) {}
  void add(const FilterSet& set) override { matcher_.add(set); }
  void remove(std::span<const FilterId> ids) override { matcher_.remove(ids); }
  MatchResults match(const EventBatch& events, bool filters) override {
    if (!one_at_a_time_) return matcher_.match(events, filters);
    MatchResults out;
    out.has_filters = filters;
    for (std::size_t i = 0; i < events.size(); ++i) matcher_.match_one(events, i, filters, out);
    return out;
  }

 private:
  Matcher matcher_;
  bool one_at_a_time_;
};

MatcherOptions on_cores(int threads) {
  MatcherOptions o;
  o.threads = threads;
  return o;
}

std::vector<MatchBackend> api_backends() {
  const auto here = [] { return std::string(); };
  return {
      {"matcher_1_core", here, [] { return std::make_unique<ApiMatcher>(on_cores(1), false); }},
      {"matcher_2_cores", here, [] { return std::make_unique<ApiMatcher>(on_cores(2), false); }},
      {"matcher_every_core", here, [] { return std::make_unique<ApiMatcher>(on_cores(0), false); }},
      {"matcher_one_at_a_time", here, [] { return std::make_unique<ApiMatcher>(on_cores(0), true); }},
      // The first piece prepared in parts by three helper threads beside the caller, the others
      // (pieces of 1100 events) in the background.
      {"matcher_3_prepare_helpers", here,
       [] {
         MatcherOptions o = on_cores(0);
         o.prepare_helpers = 3;
         o.max_batch = 1100;
         return std::make_unique<ApiMatcher>(o, false);
       }},
      // Batches cut into pieces of 7 events, each next piece prepared while one is matched.
      {"matcher_pieces_of_7", here,
       [] {
         MatcherOptions o = on_cores(0);
         o.max_batch = 7;
         return std::make_unique<ApiMatcher>(o, false);
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(Api, MatchingConformance, ::testing::ValuesIn(api_backends()), backend_name);

using conformance::C;
using conformance::D;
using conformance::E;
using conformance::I;

// Pairs of filters (interfaces 1 and 2) are added and removed together by another thread while
// batches run: every event of a batch must see both or neither, and all events of a batch the
// same state.
TEST(MatcherApi, ChangesFromAnotherThreadAreAtomicPerBatch) {
  Matcher matcher(on_cores(2));
  matcher.add(Filter{FilterId{1} << 60, 0, {C("k", Op::exists)}});  // always matches: interface 0
  std::vector<Event> events;
  for (int i = 0; i < 200; ++i) events.push_back(E({{"k", I(i)}}));
  const EventBatch batch{std::span<const Event>(events)};
  std::atomic<bool> stop{false};
  std::thread changer([&] {
    for (FilterId round = 0; !stop.load(); ++round) {
      FilterSet pair;
      pair.add(Filter{2 * round, 1, {C("k", Op::ge, I(0))}});
      pair.add(Filter{2 * round + 1, 2, {C("k", Op::lt, I(1000))}});
      matcher.add(pair);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      const std::vector<FilterId> ids = {2 * round, 2 * round + 1};
      matcher.remove(ids);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  int with = 0, without = 0;
  for (int b = 0; b < 400; ++b) {
    const MatchResults r = matcher.match(batch);
    const auto first = r.interfaces_of(0);
    const std::vector<InterfaceId> state(first.begin(), first.end());
    ASSERT_TRUE(state == std::vector<InterfaceId>({0}) || state == std::vector<InterfaceId>({0, 1, 2}))
        << "half a change seen";
    for (std::size_t i = 1; i < r.size(); ++i) {
      const auto got = r.interfaces_of(i);
      ASSERT_EQ(std::vector<InterfaceId>(got.begin(), got.end()), state)
          << "event " << i << " of batch " << b;
    }
    (state.size() == 3 ? with : without) += 1;
  }
  stop = true;
  changer.join();
  EXPECT_EQ(matcher.size(), 1u);
  const MatchResults last = matcher.match(batch);
  EXPECT_EQ(std::vector<InterfaceId>(last.interfaces_of(7).begin(), last.interfaces_of(7).end()),
            std::vector<InterfaceId>({0}));
  std::printf("batches that saw the pair: %d, without it: %d\n", with, without);
}

TEST(MatcherApi, ChangesAreVisibleToTheNextBatch) {
  Matcher matcher(on_cores(1));
  const EventBatch one{std::vector<Event>{E({{"a", I(5)}})}};
  EXPECT_TRUE(matcher.match(one).interfaces_of(0).empty());
  matcher.add(Filter{7, 9, {C("a", Op::eq, I(5))}});
  EXPECT_EQ(matcher.match(one).interfaces_of(0).size(), 1u);
  matcher.remove(7);
  EXPECT_TRUE(matcher.match(one).interfaces_of(0).empty());
  EXPECT_EQ(matcher.size(), 0u);
  EXPECT_FALSE(matcher.contains(7));
}

TEST(MatcherApi, BadFiltersAndIdsAreRejectedNamingTheProblem) {
  Matcher matcher(on_cores(1));
  matcher.add(Filter{1, 0, {C("a", Op::eq, I(1))}});
  EXPECT_NE(error_of(
                [&] {
                  matcher.add(Filter{2, 0, {}});
                },
                ErrorKind::bad_argument)
                .find("empty filter"),
            std::string::npos);
  const std::string mismatch = error_of(
      [&] {
        matcher.add(Filter{3, 0, {C("price", Op::gt, Value::text("abc"))}});
      },
      ErrorKind::bad_argument);
  EXPECT_NE(mismatch.find("filter 3 constraint 0"), std::string::npos) << mismatch;
  EXPECT_NE(mismatch.find("price > \"abc\""), std::string::npos) << mismatch;
  EXPECT_NE(error_of(
                [&] {
                  matcher.add(Filter{4, 0, {C("flag", Op::lt, Value::boolean(true))}});
                },
                ErrorKind::bad_argument)
                .find("does not take a bool"),
            std::string::npos);
  EXPECT_NE(error_of(
                [&] {
                  matcher.add(Filter{5, 0, {C("s", Op::prefix, I(3))}});
                },
                ErrorKind::bad_argument)
                .find("does not take a int64"),
            std::string::npos);
  EXPECT_NE(error_of(
                [&] {
                  matcher.add(Filter{6, 0, {C("x", Op::eq, Value::real(std::nan("")))}});
                },
                ErrorKind::bad_argument)
                .find("NaN"),
            std::string::npos);
  EXPECT_NE(error_of(
                [&] {
                  matcher.add(Filter{7, 0, {C("9x", Op::eq, I(1))}});
                },
                ErrorKind::bad_argument)
                .find("is not [A-Za-z_]"),
            std::string::npos);
  EXPECT_NE(error_of(
                [&] {
                  matcher.add(Filter{1, 0, {C("a", Op::eq, I(2))}});
                },
                ErrorKind::bad_argument)
                .find("duplicate filter id"),
            std::string::npos);
  EXPECT_NE(error_of([&] { matcher.remove(99); }, ErrorKind::bad_argument).find("unknown filter id"),
            std::string::npos);
  EXPECT_EQ(matcher.size(), 1u);
  // An event with NaN is rejected, naming the event.
  EventBatch bad;
  bad.add_attribute(bad.names.intern("a"), ValueType::float64,
                    {std::bit_cast<std::uint64_t>(std::nan("")), 0});
  bad.end_event(41);
  EXPECT_NE(error_of([&] { matcher.match(bad); }, ErrorKind::bad_argument).find("event 41"),
            std::string::npos);
}

// A batch that fails in a later piece (the next piece is prepared while one is matched) throws
// and leaves the results it was appending to as they were.
TEST(MatcherApi, ABatchFailingInALaterPieceLeavesTheResultsAsTheyWere) {
  MatcherOptions o;
  o.max_batch = 4;
  Matcher matcher(o);
  matcher.add(Filter{1, 7, {C("a", Op::ge, D(0))}});
  EventBatch events;
  const NameId a = events.names.intern("a");
  for (EventId id = 0; id < 30; ++id) {
    const double v = id == 17 ? std::nan("") : static_cast<double>(id);
    events.add_attribute(a, ValueType::float64, {std::bit_cast<std::uint64_t>(v), 0});
    events.end_event(id);
  }
  MatchResults out;
  matcher.match(events, 0, 10, false, out);  // pieces 0-3, 4-7, 8-9: every event matches
  ASSERT_EQ(out.size(), 10u);
  const MatchResults before = out;
  EXPECT_NE(
      error_of([&] { matcher.match(events, 10, 30, false, out); }, ErrorKind::bad_argument).find("event 17"),
      std::string::npos);
  EXPECT_EQ(out.events, before.events);
  EXPECT_EQ(out.interface_offsets, before.interface_offsets);
  EXPECT_EQ(out.interfaces, before.interfaces);
  // The matcher goes on: the events after the bad one, then all of them before it.
  matcher.match(events, 18, 30, false, out);
  matcher.match(events, 10, 17, false, out);
  ASSERT_EQ(out.size(), 29u);
  for (std::size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out.interfaces_of(i).size(), 1u) << i;
    EXPECT_EQ(out.interfaces_of(i)[0], 7u) << i;
  }
}

TEST(MatcherApi, PrepareHelpersOutOfRangeAreRefused) {
  for (const int helpers : {-2, 257}) {
    MatcherOptions o;
    o.prepare_helpers = helpers;
    const std::string why = error_of([&] { Matcher m(o); }, ErrorKind::bad_argument);
    EXPECT_NE(why.find("prepare_helpers"), std::string::npos) << why;
  }
}

TEST(MatcherApi, GpusThisBuildOrMachineLacksAreRefused) {
  MatcherOptions o;
  o.devices = parse_devices("--devices", "gpu0");
  o.machine = scheduler::synthetic_topology("package:1 core:2 pu:1");  // no GPU
  const std::string why = error_of([&] { Matcher m(o); }, ErrorKind::unsupported);
  EXPECT_NE(why.find(build::has_cuda ? "no GPU found" : "no CUDA support"), std::string::npos) << why;
}

TEST(MatcherApi, OneEventInLatencyMode) {
  Matcher matcher;
  matcher.add(Filter{1, 4, {C("a", Op::gt, I(1))}});
  matcher.add(Filter{2, 3, {C("a", Op::gt, I(2))}});
  const MatchResults r = matcher.match(E({{"a", I(3)}}), true);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(std::vector<InterfaceId>(r.interfaces_of(0).begin(), r.interfaces_of(0).end()),
            std::vector<InterfaceId>({3, 4}));
  EXPECT_EQ(std::vector<FilterId>(r.filters_of(0).begin(), r.filters_of(0).end()),
            std::vector<FilterId>({1, 2}));
  EXPECT_FALSE(matcher.describe().empty());
}

}  // namespace
}  // namespace sextant::testing
