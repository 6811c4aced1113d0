// Skyline benchmark data: the independent, correlated and anticorrelated distributions of
// Börzsönyi, Kossmann and Stocker ("The Skyline Operator", ICDE 2001), plus a "ties"
// distribution with few distinct values per column. Values lie in [0, 1).
//
// independent and correlated are the original algorithms (RandomPeak/RandomNormal included);
// anticorrelated makes the original's moves but draws each within bounds instead of rejecting
// whole points, which the original does at a rate exponential in d (see the .cpp).
//
// Output is a pure function of the spec: the generator uses its own PRNG (xoshiro256**)
// and its own normal variates, never <random>'s distributions (whose output differs across
// standard libraries), and seeds every block of points independently so the result does not
// depend on the number of threads either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/dataset.hpp"

namespace sextant::datagen {

enum class Distribution { independent, correlated, anticorrelated, ties };

inline constexpr int max_tie_levels = 1 << 24;  // k/q stays a distinct float for every k < q

struct GeneratorSpec {
  Distribution distribution = Distribution::independent;
  std::size_t n = 0;
  int d = 0;
  std::uint64_t seed = 1;
  int levels = 4;  // ties only: q quantisation levels, 2..max_tie_levels
};

// n x d values in [0, 1). Throws Error::argument for d outside 1..max_columns, levels outside
// 2..max_tie_levels or n above the 32-bit id range. Origin: "generated anti n=100000 d=8 seed=1".
Dataset generate(const GeneratorSpec& spec);

// "indep", "corr", "anti", "ties" or "ties:Q" (long names "independent", "correlated",
// "anticorrelated" too) -> distribution and, for ties, levels; other fields keep their
// defaults. Throws Error::argument naming `parameter`.
GeneratorSpec parse_distribution(const char* parameter, std::string_view text);

// "DIST:N:D[:SEED]", e.g. "anti:100000:8:7". DIST "ties" may carry its level count, which then
// comes first: "ties:Q:N:D[:SEED]"; "ties:N:D" uses the default levels (to give a seed with
// default levels, write the levels: "ties:4:N:D:SEED"). Throws Error::argument naming `parameter`.
GeneratorSpec parse_generate_spec(const char* parameter, std::string_view text);

// "indep", "corr", "anti", "ties" (the names parse_distribution reads).
std::string to_string(Distribution distribution);

}  // namespace sextant::datagen
