// HashCube assembly (HashCube::from_parts), the "hashcube" phase of MDMC, on synthetic parts
// shaped like anticorrelated data at d = 16: 40% of the (point, word) pairs hold an entry, with a
// random key, drawn from `keys` patterns per word (0: any 32-bit key; anticorrelated 10^5 x 16 has
// a median of about 3 000 distinct keys a word); ids come in random order, as from a GPU's part.
// Arguments: points, parts, threads, keys. Memory: about 12 bytes per entry (parts and cube).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cpu/omp_team.hpp"
#include "templates/skycube/hash_cube.hpp"

namespace sextant::skycube {
namespace {

constexpr int d = 16;

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

std::vector<HashCubePart> make_parts(std::size_t n, std::size_t part_count, std::uint64_t keys,
                                     cpu::OmpTeam& team) {
  const std::size_t words = words_for(d);
  std::vector<HashCubePart> parts;
  for (std::size_t p = 0; p < part_count; ++p) parts.emplace_back(d, d);
  constexpr std::size_t batch = 1024;
  std::vector<Word> rows(batch * words);
  std::vector<PointId> ids(batch);
  std::uint64_t state = 42;
  const auto random = [&state] { return mix(state += 0x9E3779B97F4A7C15u); };  // built quickly
  // Ids in random order, as a GPU's part holds them (quad-tree leaf order).
  std::vector<PointId> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<PointId>(i);
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[random() % i]);
  for (std::size_t first = 0; first < n; first += batch) {
    const std::size_t count = std::min(batch, n - first);
    for (std::size_t i = 0; i < count; ++i) {
      ids[i] = order[first + i];
      for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t r = random();
        const auto key = static_cast<Word>(keys == 0 ? r : mix((std::uint64_t{w} << 32) | (r % keys)));
        rows[i * words + w] = (r >> 32) % 5 < 3 ? ~Word{0} : key;
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
    std::vector<HashCubePart> parts =
        make_parts(n, part_count, static_cast<std::uint64_t>(state.range(3)), team);
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
    ->ArgNames({"points", "parts", "threads", "keys"})
    ->ArgsProduct({{100000, 400000}, {1}, {1, 2}, {0, 4096}})
    ->ArgsProduct({{1000000}, {1, 8}, {1, 16}, {0, 4096, 32768}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

// HashCube::save, the binary output, into a file of the page cache (no fsync): what the command
// line's write phase does but the sync. Arguments: points, threads (to build the cube).
void save(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  cpu::OmpTeam team(static_cast<int>(state.range(1)));
  const HashCube cube = HashCube::from_parts(d, n, d, make_parts(n, 1, 4096, team), team);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("sextant-save-bench-" + std::to_string(::getpid()) + ".sxhc");
  std::uintmax_t bytes = 0;
  for (auto _ : state) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    cube.save(out);
    out.close();
    state.PauseTiming();
    bytes = std::filesystem::file_size(path);
    std::filesystem::remove(path);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

// HashCube::load of that file, read back from the page cache (with every check load makes).
void load(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  cpu::OmpTeam team(static_cast<int>(state.range(1)));
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("sextant-load-bench-" + std::to_string(::getpid()) + ".sxhc");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    HashCube::from_parts(d, n, d, make_parts(n, 1, 4096, team), team).save(out);
  }
  for (auto _ : state) {
    std::ifstream in(path, std::ios::binary);
    const HashCube cube = HashCube::load(in, path.string());
    benchmark::DoNotOptimize(cube.stored_ids());
  }
  const auto bytes = static_cast<std::int64_t>(std::filesystem::file_size(path));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * bytes);
  std::filesystem::remove(path);
}

BENCHMARK(save)
    ->ArgNames({"points", "threads"})
    ->Args({400000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(load)
    ->ArgNames({"points", "threads"})
    ->Args({400000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace sextant::skycube

BENCHMARK_MAIN();
