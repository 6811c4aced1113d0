// Tiny deterministic random data for tests (independent of datagen/): splitmix64 values,
// quantised to a few levels so that ties are common, plus exact duplicate rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dataset.hpp"

namespace sextant::testing {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in 0 .. bound - 1 (bound > 0; the tiny modulo bias does not matter for tests).
  std::uint64_t below(std::uint64_t bound) noexcept { return next() % bound; }

 private:
  std::uint64_t state_;
};

// n x d values (row-major). Each value is one of `levels` levels (levels == 0: 2^20 levels,
// i.e. almost no ties). About duplicate_percent % of the rows (after the first) are exact
// copies of an earlier row.
inline std::vector<float> random_values(std::size_t n, int d, int levels, std::uint64_t seed,
                                        int duplicate_percent = 20) {
  SplitMix64 rng(seed);
  const std::uint64_t steps = levels > 0 ? static_cast<std::uint64_t>(levels) : std::uint64_t{1} << 20;
  const auto width = static_cast<std::size_t>(d);
  std::vector<float> values(n * width);
  for (std::size_t i = 0; i < n; ++i) {
    const bool duplicate = i > 0 && rng.below(100) < static_cast<std::uint64_t>(duplicate_percent);
    const std::size_t source = duplicate ? static_cast<std::size_t>(rng.below(i)) : i;
    for (std::size_t j = 0; j < width; ++j)
      values[i * width + j] = duplicate ? values[source * width + j]
                                        : static_cast<float>(rng.below(steps)) / static_cast<float>(steps);
  }
  return values;
}

inline Dataset random_dataset(std::size_t n, int d, int levels, std::uint64_t seed,
                              int duplicate_percent = 20) {
  return Dataset(n, d, random_values(n, d, levels, seed, duplicate_percent), {}, "random");
}

// Every row id of `data`, ascending.
inline std::vector<PointId> all_ids(const Dataset& data) {
  std::vector<PointId> ids(data.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<PointId>(i);
  return ids;
}

}  // namespace sextant::testing
