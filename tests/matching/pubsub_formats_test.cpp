// The pub/sub text and binary formats (datagen/pubsub_text.hpp, pubsub_binary.hpp), the data
// model's values (exact int64/double order) and the workload generator (datagen/pubsub_generator.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "datagen/input_file.hpp"
#include "datagen/pubsub_binary.hpp"
#include "datagen/pubsub_generator.hpp"
#include "datagen/pubsub_text.hpp"
#include "templates/matching/columns.hpp"
#include "templates/matching/value.hpp"
#include "tests/support/error_of.hpp"
#include "tests/support/random_pubsub.hpp"
#include "tests/support/test_directory.hpp"

namespace sextant::testing {
namespace {

using namespace sextant::matching;
using ::testing::HasSubstr;

std::string bad_filters(const std::string& text) {
  return error_of([&] { datagen::parse_filters(text, "subs.txt"); }, ErrorKind::bad_input);
}
std::string bad_events(const std::string& text) {
  return error_of([&] { datagen::parse_events(text, "events.txt"); }, ErrorKind::bad_input);
}

// ---- values ------------------------------------------------------------------------------

TEST(MatchingValues, CanonicalKeysOrderInt64AndDoubleExactly) {
  const auto cmp = [](NumKey a, NumKey b) { return compare(a, b); };
  EXPECT_EQ(cmp(num_key(std::int64_t{9007199254740993LL}), num_key(9007199254740992.0)), 1);
  EXPECT_EQ(cmp(num_key(std::int64_t{9007199254740992LL}), num_key(9007199254740992.0)), 0);
  EXPECT_EQ(cmp(num_key(std::int64_t{5}), num_key(5.0)), 0);
  EXPECT_EQ(cmp(num_key(std::int64_t{0}), num_key(-0.0)), 0);
  EXPECT_EQ(cmp(num_key(std::int64_t{2}), num_key(2.5)), -1);
  EXPECT_EQ(cmp(num_key(std::int64_t{-3}), num_key(-2.5)), -1);
  EXPECT_EQ(cmp(num_key(std::int64_t{-2}), num_key(-2.5)), 1);
  EXPECT_EQ(cmp(num_key(INT64_MAX), num_key(9223372036854775808.0)), -1);
  EXPECT_EQ(cmp(num_key(INT64_MIN), num_key(-9223372036854775808.0)), 0);
  EXPECT_EQ(cmp(num_key(INT64_MIN), num_key(-1e300)), 1);
  EXPECT_EQ(cmp(num_key(1e300), num_key(1e299)), 1);
  EXPECT_EQ(cmp(num_key(-1e300), num_key(-1e299)), -1);
  EXPECT_EQ(cmp(num_key(INT64_MAX - 1), num_key(INT64_MAX)), -1);
  // Against long double (exact for both types) on a grid of awkward values.
  const std::int64_t ints[] = {INT64_MIN,          INT64_MIN + 1, -9007199254740993LL, -1, 0, 1,
                               9007199254740993LL, INT64_MAX};
  const double doubles[] = {-1e300, -9223372036854775808.0, -9007199254740992.0,   -0.5, -0.0, 0.0,
                            0.5,    9007199254740994.0,     9223372036854775808.0, 1e300};
  for (const std::int64_t i : ints)
    for (const double d : doubles) {
      const long double x = static_cast<long double>(i), y = static_cast<long double>(d);
      EXPECT_EQ(cmp(num_key(i), num_key(d)), x < y ? -1 : x > y ? 1 : 0) << i << " vs " << d;
    }
}

// ---- the text format ---------------------------------------------------------------------

TEST(PubSubText, ParsesEveryTypeOperatorAndEscape) {
  const std::string text =
      "\xEF\xBB\xBF# comment\n"
      "\n"
      "filter 17 3: price > 10, price <= -2.5e1, flag = true, s prefix \"a\\\"b\\\\c\", x exists\r\n"
      "  filter 18446744073709551615 4294967295 : t suffix \"\\x00\\xff\\n\\t\\r\", u substring "
      "\"h\xC3\xA9\", v != 0.0\n";
  const FilterSet f = datagen::parse_filters(text, "subs.txt");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.ids[0], 17u);
  EXPECT_EQ(f.interfaces[0], 3u);
  EXPECT_EQ(f.ids[1], 18446744073709551615ull);
  EXPECT_EQ(f.interfaces[1], 4294967295u);
  const Filter a = f.filter(0);
  ASSERT_EQ(a.constraints.size(), 5u);
  EXPECT_EQ(a.constraints[0], (Constraint{"price", Op::gt, Value::integer(10)}));
  EXPECT_EQ(a.constraints[1], (Constraint{"price", Op::le, Value::real(-25.0)}));
  EXPECT_EQ(a.constraints[2], (Constraint{"flag", Op::eq, Value::boolean(true)}));
  EXPECT_EQ(a.constraints[3], (Constraint{"s", Op::prefix, Value::text("a\"b\\c")}));
  EXPECT_EQ(a.constraints[4].op, Op::exists);
  const Filter b = f.filter(1);
  EXPECT_EQ(b.constraints[0].value.as_string(), std::string("\0\xff\n\t\r", 5));
  EXPECT_EQ(b.constraints[1].value.as_string(), "h\xC3\xA9");
  EXPECT_EQ(b.constraints[2], (Constraint{"v", Op::ne, Value::real(0.0)}));

  const EventBatch e = datagen::parse_events(
      "event: a = 1, a = -2, b = \"x\"\nevent 99: \nevent:c=1e-400,d=false\n", "events.txt");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e.ids[0], 0u);
  EXPECT_EQ(e.ids[1], 99u);
  EXPECT_EQ(e.ids[2], 2u);
  EXPECT_EQ(e.event(0).attributes.size(), 3u);
  EXPECT_TRUE(e.event(1).attributes.empty());
  EXPECT_EQ(e.event(2).attributes[0].value, Value::real(0.0));  // underflow to zero is not an error
}

TEST(PubSubText, ErrorsNameLineAndColumn) {
  EXPECT_THAT(bad_filters("filter 1 2: x == 3\n"), HasSubstr("subs.txt:1:15: unknown operator '=='"));
  EXPECT_THAT(bad_filters("filter 1 2: x contains \"a\"\n"),
              HasSubstr("subs.txt:1:15: unknown operator 'contains'"));
  EXPECT_THAT(bad_filters("\nfilter 1 2: price > \"abc\"\n"),
              HasSubstr("subs.txt:2:21: type mismatch: operator > does not take a string"));
  EXPECT_THAT(bad_filters("filter 1 2: flag < true\n"), HasSubstr("subs.txt:1:20: type mismatch"));
  EXPECT_THAT(bad_filters("filter 1 2: s prefix 3\n"), HasSubstr("subs.txt:1:22: type mismatch"));
  EXPECT_THAT(bad_filters("filter 1 2:\n"), HasSubstr("subs.txt:1:12: an empty filter"));
  EXPECT_THAT(bad_filters("filter 1 2: a = 1\nfilter 1 3: b = 2\n"),
              HasSubstr("subs.txt:2:8: duplicate filter id 1 (first on line 1)"));
  EXPECT_THAT(bad_filters("filter 1 2 a = 1\n"), HasSubstr("subs.txt:1:12: expected ':'"));
  EXPECT_THAT(bad_filters("filter x 2: a = 1\n"), HasSubstr("subs.txt:1:8: expected a filter id"));
  EXPECT_THAT(bad_filters("filter 1 4294967296: a = 1\n"), HasSubstr("interface id 4294967296 out of range"));
  EXPECT_THAT(bad_filters("filter 1 2: a = 1,\n"), HasSubstr("subs.txt:1:19: expected a name"));
  EXPECT_THAT(bad_filters("filter 1 2: a = 1 b = 2\n"), HasSubstr("subs.txt:1:19: expected ',' or the end"));
  EXPECT_THAT(bad_filters("filter 1 2: a = \"abc\n"),
              HasSubstr("subs.txt:1:17: a string without its closing quote"));
  EXPECT_THAT(bad_filters("filter 1 2: a = \"a\xff\"\n"),
              HasSubstr("subs.txt:1:19: byte 0xff is not valid UTF-8"));
  EXPECT_THAT(bad_filters("filter 1 2: a = \"a\tb\"\n"), HasSubstr("subs.txt:1:19: a raw control byte 0x09"));
  EXPECT_THAT(bad_filters("filter 1 2: a = \"\\q\"\n"), HasSubstr("subs.txt:1:18: unknown escape"));
  EXPECT_THAT(bad_filters("filter 1 2: a = \"\\x4\"\n"), HasSubstr("\\x needs two hex digits"));
  EXPECT_THAT(bad_filters("filter 1 2: a = nan\n"), HasSubstr("subs.txt:1:17: 'nan' is not a value"));
  EXPECT_THAT(bad_filters("filter 1 2: a = 1e999\n"), HasSubstr("beyond the double range"));
  EXPECT_THAT(bad_filters("filter 1 2: a = 9223372036854775808\n"), HasSubstr("out of the int64 range"));
  EXPECT_THAT(bad_filters("filter 1 2: a = abc\n"), HasSubstr("strings need double quotes"));
  EXPECT_THAT(bad_filters("filter 1 2: a = 12abc\n"), HasSubstr("a malformed number"));
  EXPECT_THAT(bad_filters("event: a = 1\n"),
              HasSubstr("subs.txt:1:1: an event line in a subscriptions file"));
  EXPECT_THAT(bad_filters("filter 1 2: 9a = 1\n"), HasSubstr("subs.txt:1:13: expected a name"));
  EXPECT_THAT(bad_events("event: a > 1\n"), HasSubstr("events.txt:1:10: expected '='"));
  EXPECT_THAT(bad_events("event 1 a = 1\n"), HasSubstr("events.txt:1:9: expected ':'"));
  EXPECT_THAT(bad_events("filter 1 2: a = 1\n"),
              HasSubstr("events.txt:1:1: a filter line in an events file"));
  EXPECT_THAT(bad_events("event: a = -inf\n"), HasSubstr("expected a value"));
  // INT64_MIN is a valid integer.
  EXPECT_EQ(
      datagen::parse_filters("filter 1 2: a = -9223372036854775808\n", "s").filter(0).constraints[0].value,
      Value::integer(INT64_MIN));
}

TEST(PubSubText, WritesWhatItReadsForRandomFiltersAndEvents) {
  RandomPubSubSpec spec;
  spec.seed = 3;
  RandomPubSub gen(spec);
  FilterSet filters;
  for (const auto& f : gen.filters(300)) filters.add(f);
  const EventBatch events(gen.events(300));
  std::ostringstream ft, et;
  datagen::write_filters_text(ft, filters);
  datagen::write_events_text(et, events);
  const FilterSet f2 = datagen::parse_filters(ft.str(), "f");
  const EventBatch e2 = datagen::parse_events(et.str(), "e");
  EXPECT_EQ(f2.filters(), filters.filters());
  ASSERT_EQ(e2.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(e2.event(i), events.event(i)) << i;
  EXPECT_EQ(e2.ids, events.ids);
}

// ---- the binary format -------------------------------------------------------------------

class PubSubBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_directory("sextant-pubsub");
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(PubSubBinary, RoundTripsAndIsReadByTheSameEntryPoints) {
  RandomPubSubSpec spec;
  spec.seed = 4;
  RandomPubSub gen(spec);
  FilterSet filters;
  for (const auto& f : gen.filters(200)) filters.add(f);
  const EventBatch events(gen.events(150));
  const std::string fp = (dir_ / "f.bin").string(), ep = (dir_ / "e.bin").string();
  datagen::write_filters_binary(fp, filters);
  datagen::write_events_binary(ep, events);
  const FilterSet f2 = datagen::read_filters(fp);
  const EventBatch e2 = datagen::read_events(ep);
  EXPECT_EQ(f2.filters(), filters.filters());
  ASSERT_EQ(e2.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(e2.event(i), events.event(i));
}

TEST_F(PubSubBinary, CorruptFilesAreBadInputNamingTheFile) {
  FilterSet filters;
  filters.add(Filter{1, 2, {{"a", Op::lt, Value::integer(5)}, {"s", Op::prefix, Value::text("ab")}}});
  std::ostringstream out;
  datagen::write_filters_binary(out, filters);
  const std::string good = out.str();
  const auto read = [&](std::string bytes) {
    const std::string p = (dir_ / "x.bin").string();
    std::ofstream(p, std::ios::binary) << bytes;
    return error_of([&] { datagen::read_filters(p); }, ErrorKind::bad_input);
  };
  EXPECT_THAT(read(good.substr(0, good.size() - 1)), HasSubstr("x.bin"));  // truncated
  EXPECT_THAT(read(good + "x"), HasSubstr("x.bin"));                       // trailing bytes
  std::string v = good;
  v[4] = 2;  // version
  EXPECT_THAT(read(v), HasSubstr("version"));
  std::string op = good;
  op[48 + 16 * 2 + 24 + 4] = 42;  // the first constraint's operator (after 2 names, 1 filter)
  EXPECT_THAT(read(op), HasSubstr("unknown operator 42"));
  std::string type = good;
  type[48 + 16 * 2 + 24 + 4] = static_cast<char>(Op::gt);  // 2 names: the constraint starts later
  type[48 + 16 * 2 + 24 + 5] = static_cast<char>(ValueType::string);
  EXPECT_THAT(read(type), HasSubstr("does not take a string"));
  std::string count = good;
  count[48 + 16 * 2 + 16] = 3;  // the filter claims 3 constraints
  EXPECT_THAT(read(count), HasSubstr("more constraints than the header says"));
}

// ---- the generator -----------------------------------------------------------------------

TEST(PubSubGenerator, DefaultScenarioIsTable1) {
  datagen::PubSubSpec spec;
  spec.min_filters = spec.max_filters = 0;
  spec.validate();
  spec = datagen::PubSubSpec{};
  spec.min_filters = 2250;  // a tenth of the scale, same shape
  spec.max_filters = 2750;
  const FilterSet f = datagen::generate_filters(spec);
  const EventBatch e = datagen::generate_events(spec);
  ASSERT_EQ(e.size(), 1000u);
  std::map<InterfaceId, std::size_t> per_interface;
  std::array<std::size_t, op_count> ops{};
  for (std::size_t i = 0; i < f.size(); ++i) {
    ++per_interface[f.interfaces[i]];
    EXPECT_EQ(f.ids[i], i);
    const std::size_t n = f.constraints_of(i);
    EXPECT_GE(n, 3u);
    EXPECT_LE(n, 5u);
    std::set<std::uint32_t> names;
    for (std::uint64_t c = f.offsets[i]; c < f.offsets[i + 1]; ++c) {
      names.insert(f.constraint_name[c]);
      ++ops[static_cast<int>(f.constraint_op[c])];
      EXPECT_EQ(f.constraint_type[c], ValueType::int64);
      EXPECT_LT(f.constraint_value[c].a, 100u);
    }
    EXPECT_EQ(names.size(), n) << "a filter's names are distinct";
  }
  EXPECT_EQ(per_interface.size(), 10u);
  for (const auto& [iface, n] : per_interface) {
    EXPECT_GE(n, 2250u);
    EXPECT_LE(n, 2750u);
  }
  const double total = static_cast<double>(f.constraints());
  for (const Op o : {Op::eq, Op::ne, Op::lt, Op::gt})
    EXPECT_NEAR(static_cast<double>(ops[static_cast<int>(o)]) / total, 0.25, 0.01);
  for (std::size_t i = 0; i < e.size(); ++i) {
    EXPECT_GE(e.offsets[i + 1] - e.offsets[i], 3u);
    EXPECT_LE(e.offsets[i + 1] - e.offsets[i], 5u);
  }
  EXPECT_EQ(f.names.size(), 100u);
}

TEST(PubSubGenerator, DeterministicBySeedAndSweepsChangeTheShape) {
  datagen::PubSubSpec spec;
  spec.min_filters = 100;
  spec.max_filters = 120;
  spec.events = 50;
  const FilterSet a = datagen::generate_filters(spec), b = datagen::generate_filters(spec);
  EXPECT_EQ(a.filters(), b.filters());
  spec.seed = 2;
  EXPECT_NE(datagen::generate_filters(spec).filters(), a.filters());
  // Strings and Zipf names.
  spec.numeric_share = 0.5;
  spec.zipf = 1.0;
  spec.string_ops = datagen::parse_op_mix("--string-ops", "substring:1", ValueType::string);
  const FilterSet s = datagen::generate_filters(spec);
  std::size_t strings = 0, rank0 = 0, rank99 = 0;
  for (std::size_t c = 0; c < s.constraints(); ++c) {
    if (s.constraint_type[c] == ValueType::string) {
      ++strings;
      EXPECT_EQ(s.constraint_op[c], Op::substring);
      EXPECT_FALSE(s.string_of(s.constraint_value[c]).empty());
    }
    rank0 += s.constraint_name[c] == 0;
    rank99 += s.constraint_name[c] == 99;
  }
  EXPECT_NEAR(static_cast<double>(strings) / static_cast<double>(s.constraints()), 0.5, 0.1);
  EXPECT_GT(rank0, 5 * rank99 + 1) << "Zipf: name 0 is far more frequent than name 99";
  // Total constraints fixes the filters per interface.
  datagen::PubSubSpec t;
  t.set_total_constraints(1000000);
  EXPECT_EQ(t.min_filters, 22500u);
  EXPECT_EQ(t.max_filters, 27500u);
}

TEST(PubSubGenerator, InvalidSpecsNameTheParameter) {
  datagen::PubSubSpec spec;
  spec.max_constraints = 200;
  EXPECT_THAT(error_of([&] { spec.validate(); }, ErrorKind::bad_argument), HasSubstr("constraints"));
  spec = {};
  spec.zipf = -1;
  EXPECT_THAT(error_of([&] { spec.validate(); }, ErrorKind::bad_argument), HasSubstr("zipf"));
  EXPECT_THAT(
      error_of([] { datagen::parse_op_mix("--ops", "prefix:1", ValueType::int64); }, ErrorKind::bad_argument),
      HasSubstr("not an operator of a int64"));
  EXPECT_THAT(
      error_of([] { datagen::parse_op_mix("--ops", "<:x", ValueType::int64); }, ErrorKind::bad_argument),
      HasSubstr("not a weight"));
}

}  // namespace
}  // namespace sextant::testing
