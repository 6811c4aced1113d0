// Random pub/sub workloads for the matching tests, built to hit the semantics' corners: few names
// (so filters and events overlap and many filters survive the Bloom scan), values drawn from small
// pools with ties at every boundary (int64 and double of equal value, 2^53 and 2^53 + 1, -0.0,
// halves, the int64 extremes, doubles beyond them), strings that are prefixes, suffixes and
// substrings of each other (with quotes, backslashes, NUL and non-UTF-8 bytes), bools; every
// operator of every type, exists, repeated names in events and filters, names only filters use
// and names only events carry.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "templates/matching/model.hpp"

namespace sextant::testing {

struct RandomPubSubSpec {
  std::uint32_t names = 8;        // names both sides use: n0 ..
  std::uint32_t filter_only = 2;  // names only filters use: f0 ..
  std::uint32_t event_only = 2;   // names only events carry: e0 ..
  std::uint32_t interfaces = 10;
  std::uint32_t min_constraints = 1, max_constraints = 4;
  std::uint32_t min_attributes = 0, max_attributes = 6;
  double repeat_name = 0.15;  // chance an attribute or constraint reuses an earlier name
  double exists_share = 0.08;
  std::uint64_t seed = 1;
};

class RandomPubSub {
 public:
  explicit RandomPubSub(const RandomPubSubSpec& spec) : spec_(spec), rng_(spec.seed) {}

  matching::Value random_value() {
    using matching::Value;
    static const std::int64_t ints[] = {
        -3, -2, -1, 0, 1, 2, 3, 9007199254740992LL, 9007199254740993LL, INT64_MAX, INT64_MIN, INT64_MAX - 1,
        100};
    static const double doubles[] = {-3.0,
                                     -2.5,
                                     -1.0,
                                     -0.0,
                                     0.0,
                                     0.5,
                                     1.0,
                                     2.0,
                                     2.5,
                                     3.0,
                                     9007199254740992.0,
                                     9223372036854775808.0,
                                     -9223372036854775808.0,
                                     1e300,
                                     -1e300,
                                     100.0};
    static const char* const strings[] = {"",    "a",    "ab", "abc",      "b",   "ba",
                                          "bab", "a\"b", "\\", "\xff\xfe", "x\ny"};
    switch (pick(4)) {
      case 0:
        return Value::integer(ints[pick(std::size(ints))]);
      case 1:
        return Value::real(doubles[pick(std::size(doubles))]);
      case 2:
        return Value::boolean(pick(2) == 1);
      default: {
        std::string s = strings[pick(std::size(strings))];
        if (pick(8) == 0) s += std::string(1, '\0') + "z";
        return Value::text(std::move(s));
      }
    }
  }

  std::string name_for_filter() {
    const std::uint32_t n = spec_.names + spec_.filter_only;
    const std::uint32_t i = static_cast<std::uint32_t>(pick(n));
    return i < spec_.names ? "n" + std::to_string(i) : "f" + std::to_string(i - spec_.names);
  }
  std::string name_for_event() {
    const std::uint32_t n = spec_.names + spec_.event_only;
    const std::uint32_t i = static_cast<std::uint32_t>(pick(n));
    return i < spec_.names ? "n" + std::to_string(i) : "e" + std::to_string(i - spec_.names);
  }

  matching::Constraint random_constraint(const std::vector<matching::Constraint>& earlier) {
    using matching::Op;
    matching::Constraint c;
    c.name = !earlier.empty() && chance(spec_.repeat_name) ? earlier[pick(earlier.size())].name
                                                           : name_for_filter();
    if (chance(spec_.exists_share)) {
      c.op = Op::exists;
      return c;
    }
    c.value = random_value();
    std::vector<Op> ops;
    for (int o = 0; o < matching::op_count; ++o)
      if (matching::op_accepts(static_cast<Op>(o), c.value.type())) ops.push_back(static_cast<Op>(o));
    c.op = ops[pick(ops.size())];
    return c;
  }

  matching::Filter random_filter(matching::FilterId id) {
    matching::Filter f;
    f.id = id;
    f.interface = static_cast<matching::InterfaceId>(pick(spec_.interfaces));
    const auto n = spec_.min_constraints + pick(spec_.max_constraints - spec_.min_constraints + 1);
    for (std::uint64_t i = 0; i < n; ++i) f.constraints.push_back(random_constraint(f.constraints));
    return f;
  }

  // Filters with distinct random 64-bit ids.
  std::vector<matching::Filter> filters(std::size_t count) {
    std::vector<matching::Filter> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(random_filter(fresh_id()));
    return out;
  }

  matching::Event random_event() {
    matching::Event e;
    const auto n = spec_.min_attributes + pick(spec_.max_attributes - spec_.min_attributes + 1);
    for (std::uint64_t i = 0; i < n; ++i) {
      matching::Attribute a;
      a.name = !e.attributes.empty() && chance(spec_.repeat_name)
                   ? e.attributes[pick(e.attributes.size())].name
                   : name_for_event();
      a.value = random_value();
      e.attributes.push_back(std::move(a));
    }
    return e;
  }
  std::vector<matching::Event> events(std::size_t count) {
    std::vector<matching::Event> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(random_event());
    return out;
  }

  matching::FilterId fresh_id() {
    while (true) {
      const matching::FilterId id = rng_() >> (pick(2) == 0 ? 0 : 40);  // large ids and small ones
      if (used_.insert(id).second) return id;
    }
  }
  std::uint64_t pick(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::mt19937_64& rng() { return rng_; }

 private:
  RandomPubSubSpec spec_;
  std::mt19937_64 rng_;
  std::unordered_set<matching::FilterId> used_;
};

}  // namespace sextant::testing
