// HashCube assembly (HashCube::from_parts), the "hashcube" phase of MDMC, on synthetic parts
// shaped like anticorrelated data at d = 16: 40% of the (point, word) pairs hold an entry, with a
// random key. Arguments: points, parts, threads. Memory: about 12 bytes per entry (parts and cube).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "cpu/omp_team.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::skycube {
namespace {

constexpr int d = 16;

std::vector<HashCubePart> make_parts(std::size_t n, std::size_t part_count, cpu::OmpTeam& team) {
  const std::size_t words = words_for(d);
  std::vector<HashCubePart> parts;
  for (std::size_t p = 0; p < part_count; ++p) parts.emplace_back(d, d);
  constexpr std::size_t batch = 1024;
  std::vector<Word> rows(batch * words);
  std::vector<PointId> ids(batch);
  std::uint64_t state = 42;
  const auto random = [&state] {  // splitmix64: the parts are built between timed runs, quickly
    std::uint64_t z = (state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  };
  for (std::size_t first = 0; first < n; first += batch) {
    const std::size_t count = std::min(batch, n - first);
    for (std::size_t i = 0; i < count; ++i) {
      ids[i] = static_cast<PointId>(first + i);
      for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t r = random();
        rows[i * words + w] = (r >> 32) % 5 < 3 ? ~Word{0} : static_cast<Word>(r);
      }
    }
    parts[(first / batch) % part_count].insert_batch(std::span(ids.data(), count),
                                                     std::span(rows.data(), count * words), team);
  }
  return parts;
}

void from_parts(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto part_count = static_cast<std::size_t>(state.range(1));
  cpu::OmpTeam team(static_cast<int>(state.range(2)));
  std::size_t stored = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<HashCubePart> parts = make_parts(n, part_count, team);
    state.ResumeTiming();
    const HashCube cube = HashCube::from_parts(d, n, d, std::move(parts), team);
    stored = cube.stored_ids();
    benchmark::DoNotOptimize(stored);
    state.PauseTiming();
    { const HashCube gone = std::move(const_cast<HashCube&>(cube)); }
    state.ResumeTiming();
  }
  state.counters["entries"] = static_cast<double>(stored);
  state.counters["entries/s"] =
      benchmark::Counter(static_cast<double>(stored), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(from_parts)
    ->ArgNames({"points", "parts", "threads"})
    ->Args({100000, 1, 1})
    ->Args({100000, 1, 2})
    ->Args({400000, 1, 1})
    ->Args({400000, 1, 2})
    ->Args({1000000, 1, 1})
    ->Args({1000000, 1, 4})
    ->Args({1000000, 1, 16})
    ->Args({1000000, 8, 16})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

}  // namespace
}  // namespace sextant::skycube

BENCHMARK_MAIN();
