#include "apps/pipelines/blast.hpp"

#include <algorithm>

#include "apps/pipelines/hash.hpp"
#include "core/error.hpp"

namespace sextant::pipeline::apps::blast {

namespace {

// A stream of random numbers from one seed.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(mix64(seed)) {}
  std::uint64_t next() { return mix64(state_++); }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace

Problem generate(const GeneratorConfig& c, const Settings& settings) {
  if (c.db_length < 64 || c.db_length > (1U << 31))
    throw Error::argument("--db-length", std::to_string(c.db_length), "64 .. 2^31 bases");
  if (c.query_length < 64 || c.query_length > (1U << 24))
    throw Error::argument("--query-length", std::to_string(c.query_length), "64 .. 2^24 bases");
  if (c.copy_length < 1 || c.copy_length > c.query_length || c.copy_length > c.db_length)
    throw Error::argument("--copy-length", std::to_string(c.copy_length),
                          "1 .. the query and database lengths");
  if (!(c.mutation_rate >= 0 && c.mutation_rate <= 1))
    throw Error::argument("--mutation-rate", std::to_string(c.mutation_rate), "0 .. 1");
  Problem p;
  p.settings = settings;
  Draws draws(c.seed);
  p.db.resize(c.db_length);
  for (auto& b : p.db) b = static_cast<std::uint8_t>(draws.below(4));
  p.query.resize(c.query_length);
  for (auto& b : p.query) b = static_cast<std::uint8_t>(draws.below(4));
  for (std::uint32_t i = 0; i < c.copies; ++i) {
    const std::uint32_t from = draws.below(c.query_length - c.copy_length + 1);
    const std::uint32_t to = draws.below(c.db_length - c.copy_length + 1);
    for (std::uint32_t j = 0; j < c.copy_length; ++j) {
      std::uint8_t b = p.query[from + j];
      if (draws.unit() < c.mutation_rate) b = static_cast<std::uint8_t>((b + 1 + draws.below(3)) % 4);
      p.db[to + j] = b;
    }
  }
  p.origin = "generated db=" + std::to_string(c.db_length) + " query=" + std::to_string(c.query_length) +
             " copies=" + std::to_string(c.copies) + "x" + std::to_string(c.copy_length) +
             " mutation=" + std::to_string(c.mutation_rate) + " seed=" + std::to_string(c.seed);
  build_table(p);
  return p;
}

void build_table(Problem& p) {
  const Settings& s = p.settings;
  if (s.k < 4 || s.k > 14) throw Error::argument("--word", std::to_string(s.k), "4 .. 14 bases");
  if (s.max_occurrences < 1 || s.max_occurrences > 64)
    throw Error::argument("--max-occurrences", std::to_string(s.max_occurrences), "1 .. 64");
  if (s.window > 64) throw Error::argument("--window", std::to_string(s.window), "0 .. 64");
  if (s.reward < 1 || s.penalty < 0 || s.x_drop < 0)
    throw Error::argument("scores", "reward " + std::to_string(s.reward),
                          "reward >= 1, penalty >= 0, x-drop >= 0");
  if (p.query.size() < s.k || p.db.size() < s.k)
    throw Error::argument("--word", std::to_string(s.k), "at most the query and database lengths");
  for (const std::uint8_t b : p.db)
    if (b > 3) throw Error::argument("database", std::to_string(b), "bases 0 .. 3");
  const std::size_t words = std::size_t{1} << (2 * s.k);
  std::vector<std::uint32_t> count(words, 0);
  std::vector<std::uint32_t> code(p.query.size() - s.k + 1);
  for (std::size_t q = 0; q + s.k <= p.query.size(); ++q) {
    std::uint32_t w = 0;
    for (std::uint32_t i = 0; i < s.k; ++i) {
      if (p.query[q + i] > 3) throw Error::argument("query", std::to_string(p.query[q + i]), "bases 0 .. 3");
      w = (w << 2) | p.query[q + i];
    }
    code[q] = w;
    ++count[w];
  }
  p.table_offsets.assign(words + 1, 0);
  for (std::size_t w = 0; w < words; ++w)
    p.table_offsets[w + 1] = p.table_offsets[w] + (count[w] <= s.max_occurrences ? count[w] : 0);
  p.table_positions.assign(p.table_offsets[words], 0);
  std::vector<std::uint32_t> fill(p.table_offsets.begin(), p.table_offsets.end() - 1);
  for (std::size_t q = 0; q < code.size(); ++q)
    if (count[code[q]] <= s.max_occurrences)
      p.table_positions[fill[code[q]]++] = static_cast<std::uint32_t>(q);
}

Instance<BlastPipeline> make_instance(const Problem& problem) {
  Params params;
  params.db = problem.db.data();
  params.db_length = static_cast<std::uint32_t>(problem.db.size());
  params.query = problem.query.data();
  params.query_length = static_cast<std::uint32_t>(problem.query.size());
  params.table_offsets = problem.table_offsets.data();
  params.table_positions = problem.table_positions.data();
  params.s = problem.settings;
  Instance<BlastPipeline> in;
  in.params = make_pack(params, params, params, params);
  // Positions where a whole word fits.
  in.sources = {nullptr,
                problem.db.size() >= problem.settings.k ? problem.db.size() - problem.settings.k + 1 : 0};
  return in;
}

std::vector<Hit> report_hits(std::vector<Hit> hits) {
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  return hits;
}

}  // namespace sextant::pipeline::apps::blast
