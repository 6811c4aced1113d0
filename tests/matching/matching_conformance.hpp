// The one conformance body of the matching family: every backend (each CPU variant, the CPU team,
// forced shards, the GPU hook, the Matcher front door on every device set) runs the same tests
// against the brute-force oracle (tests/support/brute_force_matcher.hpp), event for event and id
// for id: hand-worked semantics, random workloads with every operator and type and ties at the
// boundaries, 1 and 1000 interfaces, events repeating names or missing them, filters on absent
// names, long key chains, adds and removes interleaved with matching (the oracle rebuilt after each
// change), rejected changes that must leave the state unchanged.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "templates/matching/columns.hpp"
#include "templates/matching/match_results.hpp"
#include "templates/matching/model.hpp"
#include "templates/matching/text_values.hpp"
#include "tests/support/brute_force_matcher.hpp"
#include "tests/support/random_pubsub.hpp"

namespace sextant::testing {

class MatcherUnderTest {
 public:
  virtual ~MatcherUnderTest() = default;
  virtual void add(const matching::FilterSet& set) = 0;
  virtual void remove(std::span<const matching::FilterId> ids) = 0;
  virtual matching::MatchResults match(const matching::EventBatch& events, bool filters) = 0;
};

struct MatchBackend {
  std::string name;
  std::function<std::string()> unavailable;  // why it cannot run here; "" when it can
  std::function<std::unique_ptr<MatcherUnderTest>()> make;
};

inline void PrintTo(const MatchBackend& b, std::ostream* os) {
  *os << b.name;
}

inline std::string backend_name(const ::testing::TestParamInfo<MatchBackend>& info) {
  return info.param.name;
}

inline matching::FilterSet filter_set(const std::vector<matching::Filter>& filters) {
  matching::FilterSet set;
  for (const auto& f : filters) set.add(f);
  return set;
}

inline std::string describe(const matching::Event& e) {
  std::string out = "{";
  for (const auto& a : e.attributes) out += a.name + "=" + matching::format_value(a.value) + " ";
  return out + "}";
}

class MatchingConformance : public ::testing::TestWithParam<MatchBackend> {
 protected:
  void SetUp() override {
    if (const std::string why = GetParam().unavailable(); !why.empty()) GTEST_SKIP() << why;
    matcher_ = GetParam().make();
  }

  void add(const std::vector<matching::Filter>& filters) {
    matcher_->add(filter_set(filters));
    live_.insert(live_.end(), filters.begin(), filters.end());
  }
  void remove(const std::vector<matching::FilterId>& ids) {
    matcher_->remove(ids);
    std::erase_if(live_, [&](const matching::Filter& f) {
      return std::find(ids.begin(), ids.end(), f.id) != ids.end();
    });
  }

  // Matches `events` in one batch (and, with filters on, reporting ids) and compares every event
  // with the oracle over the live filters.
  void expect_oracle(const std::vector<matching::Event>& events, bool filters, const std::string& where) {
    const matching::EventBatch batch{std::span<const matching::Event>(events)};
    const matching::MatchResults got = matcher_->match(batch, filters);
    ASSERT_EQ(got.size(), events.size()) << where;
    for (std::size_t i = 0; i < events.size(); ++i) {
      ASSERT_EQ(got.events[i], i) << where;
      const OracleMatch want = oracle_match(live_, events[i]);
      const auto ifaces = got.interfaces_of(i);
      ASSERT_EQ(std::vector<matching::InterfaceId>(ifaces.begin(), ifaces.end()), want.interfaces)
          << where << ", event " << i << " " << describe(events[i]);
      if (filters) {
        const auto ids = got.filters_of(i);
        ASSERT_EQ(std::vector<matching::FilterId>(ids.begin(), ids.end()), want.filters)
            << where << ", event " << i << " " << describe(events[i]);
      }
    }
  }

  std::unique_ptr<MatcherUnderTest> matcher_;
  std::vector<matching::Filter> live_;
};

namespace conformance {

using matching::Constraint;
using matching::Event;
using matching::Filter;
using matching::Op;
using matching::Value;

inline Constraint C(std::string name, Op op, Value v = {}) {
  return Constraint{std::move(name), op, std::move(v)};
}
inline Event E(std::vector<std::pair<std::string, Value>> attrs) {
  Event e;
  for (auto& [n, v] : attrs) e.attributes.push_back({n, v});
  return e;
}
inline Value I(std::int64_t v) {
  return Value::integer(v);
}
inline Value D(double v) {
  return Value::real(v);
}
inline Value B(bool v) {
  return Value::boolean(v);
}
inline Value S(std::string v) {
  return Value::text(std::move(v));
}

}  // namespace conformance

// Semantics worked out by hand (DESIGN.md, "Matching"), checked against fixed expectations as
// well as against the oracle.
TEST_P(MatchingConformance, HandWorkedSemantics) {
  using namespace conformance;
  add({
      Filter{1, 7, {C("x", Op::gt, I(2)), C("x", Op::lt, I(2))}},  // two attributes of x may each satisfy one
      Filter{2, 3, {C("y", Op::ne, I(5))}},                        // != needs some y
      Filter{3, 4, {C("z", Op::exists)}},                          // any value of any type
      Filter{4, 5, {C("big", Op::gt, D(9007199254740992.0))}},     // 2^53 + 1 > 2^53, exactly
      Filter{5, 6, {C("flag", Op::eq, B(true)), C("n", Op::ge, D(2.0))}},
      Filter{6, 8, {C("s", Op::prefix, S("ab")), C("s", Op::suffix, S("yz"))}},
      Filter{7, 9, {C("s", Op::substring, S("\"q\\"))}}, Filter{8, 10, {C("n", Op::eq, I(2))}},  // 2 == 2.0
      Filter{9, 3, {C("y", Op::eq, I(5)), C("w", Op::lt, D(-0.5))}},  // interface 3's second filter
      Filter{10, 12, {C("absent", Op::eq, I(1))}},                    // no event has this name
  });
  const std::vector<Event> events = {
      E({{"x", I(1)}, {"x", I(5)}}),                // 0: f1
      E({{"y", I(5)}}),                             // 1: nothing
      E({{"y", I(5)}, {"y", I(6)}}),                // 2: f2 (6 != 5)
      E({{"q", I(1)}}),                             // 3: nothing (!= on a missing name)
      E({{"z", S("str")}, {"z", B(true)}}),         // 4: f3
      E({{"big", I(9007199254740993LL)}}),          // 5: f4
      E({{"big", I(9007199254740992LL)}}),          // 6: nothing (equal)
      E({{"flag", B(true)}, {"n", I(2)}}),          // 7: f5, f8
      E({{"flag", I(1)}, {"n", D(2.0)}}),           // 8: f8 (an int is no bool)
      E({{"s", S("abxyz")}}),                       // 9: f6
      E({{"s", S("ab")}, {"s", S("yz")}}),          // 10: f6 (prefix and suffix from two attributes)
      E({{"s", S("a\"q\\b")}}),                     // 11: f7
      E({{"y", I(5)}, {"w", I(-1)}}),               // 12: f9
      E({{"y", I(4)}, {"w", I(-1)}, {"y", I(5)}}),  // 13: f2, f9
      E({{"s", I(5)}}),                             // 14: nothing (a number is no string)
      E({}),                                        // 15: nothing
      E({{"n", D(2.5)}, {"flag", B(true)}}),        // 16: f5
  };
  const std::vector<std::vector<matching::InterfaceId>> interfaces = {
      {7}, {}, {3}, {}, {4}, {5}, {}, {6, 10}, {10}, {8}, {8}, {9}, {3}, {3}, {}, {}, {6}};
  const std::vector<std::vector<matching::FilterId>> filters = {
      {1}, {}, {2}, {}, {3}, {4}, {}, {5, 8}, {8}, {6}, {6}, {7}, {9}, {2, 9}, {}, {}, {5}};
  const matching::MatchResults got =
      matcher_->match(matching::EventBatch{std::span<const Event>(events)}, true);
  ASSERT_EQ(got.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto gi = got.interfaces_of(i);
    const auto gf = got.filters_of(i);
    EXPECT_EQ(std::vector<matching::InterfaceId>(gi.begin(), gi.end()), interfaces[i]) << "event " << i;
    EXPECT_EQ(std::vector<matching::FilterId>(gf.begin(), gf.end()), filters[i]) << "event " << i;
  }
  expect_oracle(events, true, "hand-worked");
  expect_oracle(events, false, "hand-worked, interfaces only");
}

TEST_P(MatchingConformance, RandomWorkloadsAgainstTheOracle) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    matcher_ = GetParam().make();
    live_.clear();
    RandomPubSubSpec spec;
    spec.seed = seed;
    spec.names = seed % 2 == 0 ? 5 : 9;
    RandomPubSub gen(spec);
    add(gen.filters(400));
    const auto events = gen.events(300);
    expect_oracle(events, true, "seed " + std::to_string(seed));
    expect_oracle(events, false, "seed " + std::to_string(seed) + ", interfaces only");
  }
}

// Batches of a few thousand events: a Matcher prepares them in parts on helper threads and matches
// them in pieces.
TEST_P(MatchingConformance, BatchesOfThousandsOfEventsAgainstTheOracle) {
  RandomPubSubSpec spec;
  spec.seed = 31;
  spec.names = 7;
  RandomPubSub gen(spec);
  add(gen.filters(300));
  const auto events = gen.events(2600);
  expect_oracle(events, true, "2600 events");
}

TEST_P(MatchingConformance, OneInterfaceAndAThousand) {
  for (const std::uint32_t interfaces : {1u, 1000u}) {
    matcher_ = GetParam().make();
    live_.clear();
    RandomPubSubSpec spec;
    spec.seed = 10 + interfaces;
    spec.interfaces = interfaces;
    spec.min_constraints = 1;
    spec.max_constraints = 2;
    RandomPubSub gen(spec);
    add(gen.filters(interfaces == 1 ? 200 : 3000));
    const auto events = gen.events(200);
    expect_oracle(events, true, std::to_string(interfaces) + " interfaces");
    expect_oracle(events, false, std::to_string(interfaces) + " interfaces, interfaces only");
  }
}

// Many filters under one key: chains of many pages, and removals from the middle of the chain
// (the key's last filter moves into the hole).
TEST_P(MatchingConformance, LongKeyChains) {
  using namespace conformance;
  std::vector<Filter> filters;
  for (matching::FilterId id = 0; id < 700; ++id)
    filters.push_back(Filter{id * 3 + 1,
                             static_cast<matching::InterfaceId>(id % 37),
                             {C("k", static_cast<Op>(id % 6), I(static_cast<std::int64_t>(id % 11) - 5))}});
  add(filters);
  std::vector<Event> events;
  for (int v = -7; v <= 7; ++v) events.push_back(E({{"k", I(v)}}));
  events.push_back(E({{"k", D(0.5)}, {"k", I(3)}}));
  expect_oracle(events, true, "700 filters on one name");
  std::vector<matching::FilterId> gone;
  for (matching::FilterId id = 0; id < 700; id += 3) gone.push_back(id * 3 + 1);
  remove(gone);
  expect_oracle(events, true, "after removing every third");
  gone.clear();
  for (const auto& f : live_) gone.push_back(f.id);
  remove(gone);
  expect_oracle(events, true, "after removing all");
  add(filters);
  expect_oracle(events, true, "after adding them again");
}

TEST_P(MatchingConformance, AddsAndRemovesInterleavedWithMatching) {
  RandomPubSubSpec spec;
  spec.seed = 77;
  spec.names = 6;
  RandomPubSub gen(spec);
  const auto events = gen.events(120);
  expect_oracle(events, true, "empty matcher");
  for (int round = 0; round < 12; ++round) {
    const std::string where = "round " + std::to_string(round);
    add(gen.filters(round % 3 == 0 ? 150 : 40));
    expect_oracle(events, true, where + " after adding");
    std::vector<matching::FilterId> gone;
    for (const auto& f : live_)
      if (gen.chance(round % 4 == 3 ? 0.9 : 0.3)) gone.push_back(f.id);
    remove(gone);
    expect_oracle(events, round % 2 == 0, where + " after removing " + std::to_string(gone.size()));
  }
  // One filter at a time, as a subscriber would.
  for (int i = 0; i < 60; ++i) {
    add({gen.random_filter(gen.fresh_id())});
    if (i % 3 == 2) remove({live_[gen.pick(live_.size())].id});
  }
  expect_oracle(events, true, "after single changes");
}

// A rejected change (duplicate or unknown id, a bad filter) throws and leaves the matcher as it was.
TEST_P(MatchingConformance, RejectedChangesLeaveTheStateUnchanged) {
  using namespace conformance;
  RandomPubSubSpec spec;
  spec.seed = 5;
  RandomPubSub gen(spec);
  add(gen.filters(200));
  const auto events = gen.events(100);
  expect_oracle(events, true, "before");
  // A set whose last filter repeats a live id: nothing of the set may be added.
  std::vector<Filter> bad = gen.filters(5);
  bad.push_back(Filter{live_[3].id, 1, {C("n1", Op::eq, I(1))}});
  EXPECT_THROW(matcher_->add(filter_set(bad)), Error);
  // A set that repeats an id within itself.
  std::vector<Filter> twice = gen.filters(3);
  twice.push_back(twice[0]);
  twice.back().constraints = {C("n2", Op::lt, I(0))};
  EXPECT_THROW(matcher_->add(filter_set(twice)), Error);
  // Removing an unknown id, or a live id twice, removes nothing.
  const std::vector<matching::FilterId> unknown = {live_[0].id, gen.fresh_id()};
  EXPECT_THROW(matcher_->remove(unknown), Error);
  const std::vector<matching::FilterId> repeated = {live_[1].id, live_[1].id};
  EXPECT_THROW(matcher_->remove(repeated), Error);
  expect_oracle(events, true, "after the rejected changes");
}

TEST_P(MatchingConformance, EmptyFiltersAndEvents) {
  using namespace conformance;
  expect_oracle({E({}), E({{"a", I(1)}})}, true, "no filters");
  add({Filter{5, 0, {C("a", Op::exists)}}});
  expect_oracle({E({}), E({{"a", I(1)}}), E({{"b", I(1)}})}, true, "one filter");
  const matching::MatchResults none = matcher_->match(matching::EventBatch{}, true);
  EXPECT_EQ(none.size(), 0u);
}

// Events that hold very many distinct names take the key-table walk instead of pair probes.
TEST_P(MatchingConformance, EventsWithManyNames) {
  RandomPubSubSpec spec;
  spec.seed = 31;
  spec.names = 90;
  spec.min_constraints = 2;
  spec.max_constraints = 3;
  spec.min_attributes = 60;
  spec.max_attributes = 110;
  RandomPubSub gen(spec);
  add(gen.filters(600));
  expect_oracle(gen.events(40), true, "60 .. 110 attributes per event");
}

}  // namespace sextant::testing
