// PreparedEvents cut into parts on helper threads gives the very columns of the serial pass: on
// batches whose events drop attributes (names no filter uses), repeat names and mix types (so the
// parts must be closed up), for ranges that start inside a batch, and the error names the first
// bad event in order whichever part finds it.
#include "templates/matching/prepared_events.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_parts.hpp"
#include "templates/matching/matching_policy.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::testing {
namespace {

using namespace sextant::matching;

std::string name(int i) {
  std::string s = "n";
  s += std::to_string(i);
  return s;
}

// Filters on names n0 .. n9 (n10 .. n19 appear only in events: dropped).
MatchTables tables_with_names() {
  MatchTables tables;
  FilterSet set;
  for (int i = 0; i < 10; ++i)
    set.add(Filter{static_cast<FilterId>(i), 0, {Constraint{name(i), Op::exists, {}}}});
  tables.add(set);
  return tables;
}

// `events` events of 0 .. 12 attributes (names repeat) of every type over names n0 .. n9, or over
// n0 .. n19 with `dropped` (half the attributes name no filter).
EventBatch random_batch(std::size_t events, std::uint32_t seed, bool dropped) {
  std::mt19937 rng(seed);
  EventBatch batch;
  std::vector<Event> list;
  for (std::size_t e = 0; e < events; ++e) {
    Event ev;
    const int attributes = static_cast<int>(rng() % 13);
    for (int a = 0; a < attributes; ++a) {
      const int n = static_cast<int>(rng() % (dropped ? 20 : 10));
      Value v;
      switch (rng() % 4) {
        case 0:
          v = Value::integer(static_cast<std::int64_t>(rng() % 7) - 3);
          break;
        case 1:
          v = Value::real(static_cast<double>(rng() % 7) / 2 - 1);
          break;
        case 2:
          v = Value::boolean(rng() % 2 == 0);
          break;
        default:
          v = Value::text(std::string(rng() % 4, static_cast<char>('a' + rng() % 3)));
          break;
      }
      ev.attributes.push_back(Attribute{name(n), v});
    }
    list.push_back(std::move(ev));
  }
  return EventBatch(list);
}

struct Columns {
  std::vector<EventId> ids;
  std::vector<std::uint32_t> name_begin, names, group_begin;
  std::vector<std::uint32_t> group_name, group_cls, group_begin_value, group_count;
  std::vector<std::uint64_t> a, b, bloom;
  bool operator==(const Columns&) const = default;
};

Columns columns(const PreparedEvents& p) {
  Columns c;
  c.ids.assign(p.ids().begin(), p.ids().end());
  c.name_begin.assign(p.name_begin().begin(), p.name_begin().end());
  c.names.assign(p.names().begin(), p.names().end());
  c.group_begin.assign(p.group_begin().begin(), p.group_begin().end());
  for (const EventGroup& g : p.groups()) {
    c.group_name.push_back(g.name);
    c.group_cls.push_back(g.cls);
    c.group_begin_value.push_back(g.begin);
    c.group_count.push_back(g.count);
  }
  c.a.assign(p.value_a().begin(), p.value_a().end());
  c.b.assign(p.value_b().begin(), p.value_b().end());
  c.bloom.assign(p.blooms().begin(), p.blooms().end());
  return c;
}

TEST(PreparedEvents, PartsOnHelperThreadsGiveTheSerialColumns) {
  const MatchTables tables = tables_with_names();
  ParallelParts threads(3);
  const std::size_t part = policy::Batches::min_prepare_part;
  for (const bool dropped : {false, true}) {
    const EventBatch batch = random_batch(5 * part + 77, dropped ? 7u : 8u, dropped);
    for (const auto& [begin, end] :
         std::vector<std::pair<std::size_t, std::size_t>>{{0, batch.size()},
                                                          {13, batch.size()},
                                                          {part / 2, part / 2 + 2 * part + 1},
                                                          {5, 5 + part},
                                                          {9, 9}}) {
      PreparedEvents serial, parted;
      serial.prepare(batch, begin, end, tables);
      parted.prepare(batch, begin, end, tables, &threads);
      EXPECT_EQ(columns(parted), columns(serial))
          << "dropped " << dropped << " range " << begin << ".." << end;
      // Reused buffers: a smaller range after a larger one.
      parted.prepare(batch, begin, begin + (end - begin) / 3, tables, &threads);
      serial.prepare(batch, begin, begin + (end - begin) / 3, tables);
      EXPECT_EQ(columns(parted), columns(serial));
    }
  }
}

TEST(PreparedEvents, PartsCloseUpWhatTheyDropped) {
  // With dropped names the parts leave room behind them that must be closed up: the columns hold
  // fewer values than attributes, and every group's values follow the previous group's.
  const MatchTables tables = tables_with_names();
  ParallelParts threads(3);
  const EventBatch batch = random_batch(4 * policy::Batches::min_prepare_part, 11, true);
  PreparedEvents parted;
  parted.prepare(batch, 0, batch.size(), tables, &threads);
  ASSERT_LT(parted.value_a().size(), batch.attributes());
  std::uint32_t next = 0;
  for (const EventGroup& g : parted.groups()) {
    EXPECT_EQ(g.begin, next);
    next += g.count;
  }
  EXPECT_EQ(next, parted.value_a().size());
  EXPECT_EQ(parted.name_begin().back(), parted.names().size());
  EXPECT_EQ(parted.group_begin().back(), parted.groups().size());
}

TEST(PreparedEvents, TheFirstBadEventInOrderIsNamedWhicheverPartFindsIt) {
  const MatchTables tables = tables_with_names();
  ParallelParts threads(3);
  const std::size_t part = policy::Batches::min_prepare_part;
  EventBatch batch = random_batch(4 * part, 5, false);
  // NaN in an event of the third part and of the second one, both with attributes.
  const auto poison = [&](std::size_t e) {
    while (batch.offsets[e] == batch.offsets[e + 1]) ++e;
    const std::uint64_t a = batch.offsets[e];
    batch.attribute_type[a] = ValueType::float64;
    batch.attribute_value[a] = RawValue{std::bit_cast<std::uint64_t>(std::nan("")), 0};
    return batch.ids[e];
  };
  poison(2 * part + 40);
  const EventId first = poison(part + 3);
  for (ParallelParts* t : {static_cast<ParallelParts*>(nullptr), &threads}) {
    PreparedEvents prepared;
    try {
      prepared.prepare(batch, 0, batch.size(), tables, t);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("event " + std::to_string(first) + " "), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace sextant::testing
