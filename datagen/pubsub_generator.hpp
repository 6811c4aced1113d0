// The workload generator of paper 002 (section 4, Table 1) for the matching family. Defaults are
// the paper's default scenario; every sweep of section 4 and appendix B is a field:
//
//   events               1000
//   attributes per event 3 - 5         (Fig. 6 sweeps it)
//   interfaces           10            (Fig. 9: up to 100)
//   constraints / filter 3 - 5         (Fig. 7, Fig. 11)
//   filters / interface  22500 - 27500 (Fig. 8; or total_constraints fixes their product, Fig. 7/11)
//   names                100, uniform  (Fig. 12; zipf > 0: Zipf names, Table 3)
//   numeric share        100%          (Fig. 13: the rest of the names hold strings)
//   operators            = != < > at 25% each on numbers; = != prefix suffix at 25% on strings
//   values               100           (numbers 0 .. 99; strings "s" + two letters)
//
// A filter's constraints and an event's attributes have distinct names, drawn uniformly (or by
// Zipf rank, name 0 the most frequent) from n0 .. n{names-1}; each name holds numbers or strings
// (string names spread evenly by the numeric share). Numbers are int64 in [0, values); string
// value k is "s" followed by k's base-26 letters (two letters for 100 values); prefix, suffix and
// substring constraints take a random non-empty part of such a word. Filter i (0-based over all
// interfaces, interface 0 first) has id i; event i has id i.
//
// Deterministic: a pure function of the spec (splitmix64 with random access per filter and per
// event, log/exp from datagen/portable_math.hpp), the same on every machine and compiler.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "templates/matching/columns.hpp"
#include "templates/matching/value.hpp"

namespace sextant::datagen {

// Weights per operator (Op order, templates/matching/value.hpp); only positive weights are drawn.
using OpMix = std::array<double, matching::op_count>;

// "=:25,!=:25,<:25,>:25" (weights, any positive scale); throws Error::argument naming `parameter`
// for unknown operators, bad weights, or operators that do not take `type`.
OpMix parse_op_mix(const char* parameter, std::string_view text, matching::ValueType type);
std::string to_string(const OpMix& mix);

struct PubSubSpec {
  std::uint64_t events = 1000;
  std::uint32_t min_attributes = 3, max_attributes = 5;
  std::uint32_t interfaces = 10;
  std::uint32_t min_constraints = 3, max_constraints = 5;
  std::uint64_t min_filters = 22500, max_filters = 27500;  // per interface
  std::uint32_t names = 100;
  double zipf = 0;             // 0: uniform names; else Zipf(theta), 0 < theta <= 10
  double numeric_share = 1.0;  // share of the names that hold numbers (0 .. 1)
  OpMix numeric_ops = default_numeric_ops();
  OpMix string_ops = default_string_ops();
  std::uint32_t values = 100;
  std::uint64_t seed = 1;

  static OpMix default_numeric_ops() noexcept;
  static OpMix default_string_ops() noexcept;

  // Sets min/max filters per interface to about `constraints` in total (mean +-10%, as Table 1).
  void set_total_constraints(std::uint64_t constraints);
  // Throws Error::argument naming the parameter and its valid range.
  void validate() const;
  // "interfaces=10 filters=22500-27500 constraints=3-5 ..."
  std::string describe() const;
  // Whether name i holds strings.
  bool string_name(std::uint32_t i) const noexcept;
};

matching::FilterSet generate_filters(const PubSubSpec& spec);
matching::EventBatch generate_events(const PubSubSpec& spec);

}  // namespace sextant::datagen
