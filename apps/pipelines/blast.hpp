// BLAST-like seed and extend (paper 003, Section 7.1; NCBI BLASTN's seed matching and ungapped
// extension): the sources are positions of a DNA database, and four nodes
//   1 seed match        the database word (k bases) at the position occurs in the query (a lookup
//                       table of the query's k-mers; k-mers occurring more than max_occurrences
//                       times in the query are masked, as BLAST masks repeats)      gain <= 1
//   2 seed enumeration  one (database, query) pair per occurrence of the word        gain <= 16
//   3 small extension   the bases next to the word on both sides (window each) match at least
//                       small_min times                                               gain <= 1
//   4 ungapped extension X-drop extension in both directions (match +reward, mismatch -penalty,
//                       stop when the score falls x_drop below its best); a hit when the best
//                       score reaches min_score                                       gain <= 1
// Bases are 0..3 (A, C, G, T), one per byte. Hits are reported from every seed, so an alignment
// found from several seeds is reported once per seed (report_hits() keeps distinct ones).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_device.hpp"
#include "templates/pipeline/hooks.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::apps::blast {

struct Settings {
  std::uint32_t k = 8;  // word length, 4 .. 14
  std::uint32_t max_occurrences =
      16;                       // words more frequent in the query are masked (the enumeration's gain limit)
  std::uint32_t window = 8;     // small extension: bases on each side
  std::uint32_t small_min = 8;  // ... of which at least this many match (of 2 * window)
  std::int32_t reward = 1;
  std::int32_t penalty = 3;
  std::int32_t x_drop = 16;
  std::int32_t min_score = 30;
};

struct Params {
  const std::uint8_t* db = nullptr;
  std::uint32_t db_length = 0;
  const std::uint8_t* query = nullptr;
  std::uint32_t query_length = 0;
  const std::uint32_t* table_offsets = nullptr;    // 4^k + 1 entries: word -> its range in table_positions
  const std::uint32_t* table_positions = nullptr;  // query positions, ascending per word
  Settings s;

  template <class Upload>
  Params to_device(Upload& up) const {
    Params d = *this;
    d.db = up(db, db_length);
    d.query = up(query, query_length);
    d.table_offsets = up(table_offsets, (std::size_t{1} << (2 * s.k)) + 1);
    d.table_positions = up(table_positions, table_offsets[std::size_t{1} << (2 * s.k)]);
    return d;
  }
};

struct Seed {
  std::uint32_t db_pos;
  std::uint32_t word;
};

struct SeedPair {
  std::uint32_t db_pos;
  std::uint32_t query_pos;
  friend bool operator==(const SeedPair&, const SeedPair&) = default;
};

struct Hit {
  std::uint32_t db_begin;
  std::uint32_t query_begin;
  std::uint32_t length;
  std::int32_t score;
  friend bool operator==(const Hit&, const Hit&) = default;
  friend bool operator<(const Hit& a, const Hit& b) {
    if (a.db_begin != b.db_begin) return a.db_begin < b.db_begin;
    if (a.query_begin != b.query_begin) return a.query_begin < b.query_begin;
    if (a.length != b.length) return a.length < b.length;
    return a.score < b.score;
  }
};

struct SeedMatch {
  static constexpr std::string_view name = "seed match";
  using Input = std::uint32_t;  // a database position
  using Output = Seed;
  using Params = blast::Params;
  static constexpr unsigned gain_limit = 1;

  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& pos, Emit& out) {
    if (pos + p.s.k > p.db_length) return;
    std::uint32_t word = 0;
    for (std::uint32_t i = 0; i < p.s.k; ++i) word = (word << 2) | p.db[pos + i];
    const std::uint32_t hits = p.table_offsets[word + 1] - p.table_offsets[word];
    if (hits > 0) out.push(Seed{pos, word});
  }
};

struct SeedEnumeration {
  static constexpr std::string_view name = "seed enumeration";
  using Input = Seed;
  using Output = SeedPair;
  using Params = blast::Params;
  static SEXTANT_HD unsigned gain_limit(const Params& p) { return p.s.max_occurrences; }

  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& seed, Emit& out) {
    for (std::uint32_t i = p.table_offsets[seed.word]; i < p.table_offsets[seed.word + 1]; ++i)
      out.push(SeedPair{seed.db_pos, p.table_positions[i]});
  }
};

struct SmallExtension {
  static constexpr std::string_view name = "small extension";
  using Input = SeedPair;
  using Output = SeedPair;
  using Params = blast::Params;
  static constexpr unsigned gain_limit = 1;

  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& s, Emit& out) {
    std::uint32_t matches = 0;
    for (std::uint32_t i = 1; i <= p.s.window && i <= s.db_pos && i <= s.query_pos; ++i)
      matches += p.db[s.db_pos - i] == p.query[s.query_pos - i] ? 1U : 0U;
    const std::uint32_t d = s.db_pos + p.s.k;
    const std::uint32_t q = s.query_pos + p.s.k;
    for (std::uint32_t i = 0; i < p.s.window && d + i < p.db_length && q + i < p.query_length; ++i)
      matches += p.db[d + i] == p.query[q + i] ? 1U : 0U;
    if (matches >= p.s.small_min) out.push(s);
  }
};

struct UngappedExtension {
  static constexpr std::string_view name = "ungapped extension";
  using Input = SeedPair;
  using Output = Hit;
  using Params = blast::Params;
  static constexpr unsigned gain_limit = 1;

  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& s, Emit& out) {
    const std::int32_t k = static_cast<std::int32_t>(p.s.k);
    // Right of the word.
    std::int32_t score = 0, best = 0;
    std::uint32_t right = 0;  // bases kept right of the word
    for (std::uint32_t i = 0; s.db_pos + p.s.k + i < p.db_length && s.query_pos + p.s.k + i < p.query_length;
         ++i) {
      score += p.db[s.db_pos + p.s.k + i] == p.query[s.query_pos + p.s.k + i] ? p.s.reward : -p.s.penalty;
      if (score > best) {
        best = score;
        right = i + 1;
      } else if (score < best - p.s.x_drop) {
        break;
      }
    }
    const std::int32_t right_best = best;
    // Left of the word.
    score = 0;
    best = 0;
    std::uint32_t left = 0;
    for (std::uint32_t i = 1; i <= s.db_pos && i <= s.query_pos; ++i) {
      score += p.db[s.db_pos - i] == p.query[s.query_pos - i] ? p.s.reward : -p.s.penalty;
      if (score > best) {
        best = score;
        left = i;
      } else if (score < best - p.s.x_drop) {
        break;
      }
    }
    const std::int32_t total = k * p.s.reward + right_best + best;
    if (total >= p.s.min_score)
      out.push(Hit{s.db_pos - left, s.query_pos - left, left + p.s.k + right, total});
  }
};

using BlastPipeline = Pipeline<SeedMatch, SeedEnumeration, SmallExtension, UngappedExtension>;

// A database and a query, with the query's word table.
struct Problem {
  std::vector<std::uint8_t> db;
  std::vector<std::uint8_t> query;
  std::vector<std::uint32_t> table_offsets;
  std::vector<std::uint32_t> table_positions;
  Settings settings;
  std::string origin;  // how it was made
};

// The generator: a random genome of db_length bases with `copies` mutated copies of random
// stretches of a random query planted in it (each base of a copy replaced with probability
// mutation_rate), so that hits exist. Deterministic by seed.
struct GeneratorConfig {
  std::uint32_t db_length = 1 << 22;
  std::uint32_t query_length = 16384;
  std::uint32_t copies = 64;
  std::uint32_t copy_length = 600;
  double mutation_rate = 0.05;
  std::uint64_t seed = 1;
};
Problem generate(const GeneratorConfig& config, const Settings& settings = {});

// Builds the query's word table (and checks the settings: Error::argument naming the field).
void build_table(Problem& problem);

Instance<BlastPipeline> make_instance(const Problem& problem);

// Distinct hits, sorted.
std::vector<Hit> report_hits(std::vector<Hit> hits);

}  // namespace sextant::pipeline::apps::blast
