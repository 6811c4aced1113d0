#include "templates/skycube/distinct_points.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace sextant::skycube::detail {
namespace {

// The value's bits with -0.0 read as 0.0: the two compare equal, so they must hash alike.
std::uint32_t bits_of(float x) noexcept {
  return x == 0.0f ? 0u : std::bit_cast<std::uint32_t>(x);
}

std::uint64_t hash_row(const float* row, int d) noexcept {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int c = 0; c < d; ++c) {
    h ^= bits_of(row[c]);
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  return h;
}

// Dataset values are never NaN, so == is equality of vectors (and -0.0 == 0.0).
bool same_row(const float* a, const float* b, int d) noexcept {
  for (int c = 0; c < d; ++c)
    if (a[c] != b[c]) return false;
  return true;
}

// Collapsing pays only when duplicates are common, and costs a pass over every row. Above 8 192
// rows, a sample decides first: 2 048 pairs of neighbouring rows spread over the dataset (files
// often hold copies next to each other); a sample without any duplicate skips the collapse. The
// result never depends on it: the templates are exact on duplicates either way.
bool likely_duplicates(const Dataset& data) {
  constexpr std::size_t pairs = 2048;
  const std::size_t n = data.size();
  const int d = data.dims();
  if (n <= 4 * pairs) return true;
  std::vector<std::uint64_t> sample;
  sample.reserve(2 * pairs);
  for (std::size_t k = 0; k < pairs; ++k) {
    const std::size_t i = k * (n - 1) / pairs;
    sample.push_back(hash_row(data.row(static_cast<PointId>(i)), d));
    sample.push_back(hash_row(data.row(static_cast<PointId>(i + 1)), d));
  }
  std::sort(sample.begin(), sample.end());
  return std::adjacent_find(sample.begin(), sample.end()) != sample.end();  // equal hashes: likely
}

}  // namespace

DistinctPoints::DistinctPoints(const Dataset& data) : original_(&data) {
  const std::size_t n = data.size();
  const int d = data.dims();
  if (n < 2) return;
  if (!likely_duplicates(data)) return;
  // Open addressing, at most half full, grown fourfold as groups appear (tie-heavy data has few:
  // the table stays in cache and costs no page faults). A slot holds the hash's high half beside
  // the group's number + 1 (0: empty), so rows are compared only when those match. The rows'
  // hashes are computed a block ahead (independent rows: the core overlaps them) and, once the
  // table outgrows the cache, its slots are prefetched a few rows ahead. Groups are numbered in
  // order of their first (smallest) id.
  constexpr std::size_t block = 256;
  constexpr std::size_t ahead = 16;
  constexpr std::size_t cached_slots = std::size_t{1} << 15;
  std::size_t slots = std::min(std::bit_ceil(2 * n), std::size_t{1} << 12);
  std::vector<std::uint64_t> table(slots, 0);
  std::vector<std::uint64_t> group_hash;  // per group: its rows' hash (to regrow the table)
  std::vector<std::uint32_t> group(n);
  std::vector<PointId> first;  // per group: its smallest id
  const auto place = [&](std::uint64_t hash, std::uint64_t entry) {
    std::size_t slot = hash & (slots - 1);
    while (table[slot] != 0) slot = (slot + 1) & (slots - 1);
    table[slot] = entry;
  };
  std::array<std::uint64_t, block> hashes;
  for (std::size_t begin = 0; begin < n; begin += block) {
    const std::size_t end = std::min(n, begin + block);
    for (std::size_t i = begin; i < end; ++i)
      hashes[i - begin] = hash_row(data.row(static_cast<PointId>(i)), d);
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t hash = hashes[i - begin];
      if (slots > cached_slots && i + ahead < end)
        __builtin_prefetch(&table[hashes[i + ahead - begin] & (slots - 1)], 1);
      const float* row = data.row(static_cast<PointId>(i));
      const std::uint64_t tag = hash >> 32 << 32;
      for (std::size_t slot = hash & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
        const std::uint64_t entry = table[slot];
        if (entry == 0) {
          group[i] = static_cast<std::uint32_t>(first.size());
          first.push_back(static_cast<PointId>(i));
          group_hash.push_back(hash);
          if (2 * first.size() <= slots) {
            table[slot] = tag | first.size();
          } else {  // regrow: every group again, this one included
            slots *= 4;
            table.assign(slots, 0);
            for (std::size_t g = 0; g < first.size(); ++g)
              place(group_hash[g], (group_hash[g] >> 32 << 32) | (g + 1));
          }
          break;
        }
        const auto g = static_cast<std::uint32_t>(entry);
        if ((entry >> 32 << 32) == tag && same_row(data.row(first[g - 1]), row, d)) {
          group[i] = g - 1;
          break;
        }
      }
    }
  }
  if (first.size() == n) return;  // all distinct: run on `data` itself

  const std::size_t groups = first.size();
  offsets_.assign(groups + 1, 0);
  for (const std::uint32_t g : group) ++offsets_[g + 1];
  for (std::size_t g = 0; g < groups; ++g) offsets_[g + 1] += offsets_[g];
  members_.resize(n);
  std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (std::size_t i = 0; i < n; ++i) members_[fill[group[i]]++] = static_cast<PointId>(i);

  std::vector<float> values(groups * static_cast<std::size_t>(d));
  for (std::size_t g = 0; g < groups; ++g) {
    const float* row = data.row(first[g]);
    std::copy(row, row + d, values.begin() + static_cast<std::ptrdiff_t>(g * static_cast<std::size_t>(d)));
  }
  // Already in minimisation form: every column "min".
  distinct_ = Dataset(groups, d, values, {}, data.origin());
}

std::size_t DistinctPoints::original_count(std::span<const PointId> ids) const noexcept {
  if (!has_duplicates()) return ids.size();
  std::size_t total = 0;
  for (const PointId g : ids) total += offsets_[g + 1] - offsets_[g];
  return total;
}

HashCube DistinctPoints::expand(HashCube cube, TeamRef team) const {
  if (!has_duplicates()) return cube;
  return cube.with_groups(original_->size(), offsets_, members_, std::move(team));
}

}  // namespace sextant::skycube::detail
