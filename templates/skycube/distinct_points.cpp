#include "templates/skycube/distinct_points.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#include "templates/skycube/skycube_policy.hpp"

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

// Groups of equal rows by open addressing, at most half full, grown fourfold as groups appear
// (tie-heavy data has few: the table stays in cache and costs no page faults). A slot holds the
// hash's high half beside the group's number + 1 (0: empty), so rows are compared only when those
// match. Groups are numbered in the order they are added.
class GroupTable {
 public:
  explicit GroupTable(const Dataset& data) : data_(&data), table_(initial_slots, 0) {}

  // The group of row `id` (whose hash is `hash`); a new group has `id` as its first row.
  std::uint32_t find_or_add(std::uint64_t hash, PointId id) {
    const std::uint64_t tag = hash >> 32 << 32;
    const float* row = data_->row(id);
    for (std::size_t slot = hash & (slots() - 1);; slot = (slot + 1) & (slots() - 1)) {
      const std::uint64_t entry = table_[slot];
      if (entry == 0) return add(slot, hash, id);
      const auto g = static_cast<std::uint32_t>(entry) - 1;
      if ((entry >> 32 << 32) == tag && same_row(data_->row(first_[g]), row, data_->dims())) return g;
    }
  }
  void prefetch(std::uint64_t hash) const {
    if (slots() > cached_slots) __builtin_prefetch(&table_[hash & (slots() - 1)], 1);
  }
  const std::vector<PointId>& first() const noexcept { return first_; }          // per group
  const std::vector<std::uint64_t>& hashes() const noexcept { return hashes_; }  // per group

 private:
  static constexpr std::size_t initial_slots = std::size_t{1} << 12;
  static constexpr std::size_t cached_slots = std::size_t{1} << 15;

  std::size_t slots() const noexcept { return table_.size(); }
  std::uint32_t add(std::size_t slot, std::uint64_t hash, PointId id) {
    const auto g = static_cast<std::uint32_t>(first_.size());
    first_.push_back(id);
    hashes_.push_back(hash);
    if (2 * first_.size() <= slots()) {
      table_[slot] = (hash >> 32 << 32) | (g + 1);
    } else {  // regrow: every group again, this one included
      table_.assign(4 * slots(), 0);
      for (std::size_t k = 0; k < first_.size(); ++k) {
        std::size_t at = hashes_[k] & (slots() - 1);
        while (table_[at] != 0) at = (at + 1) & (slots() - 1);
        table_[at] = (hashes_[k] >> 32 << 32) | (k + 1);
      }
    }
    return g;
  }

  const Dataset* data_;
  std::vector<std::uint64_t> table_;
  std::vector<PointId> first_;
  std::vector<std::uint64_t> hashes_;
};

// Rows [begin, end) into `table`, group[i] = their group. The hashes are computed a block ahead
// (independent rows: the core overlaps them) and the table's slots prefetched a few rows ahead.
void group_rows(const Dataset& data, std::size_t begin, std::size_t end, GroupTable& table,
                std::uint32_t* group) {
  constexpr std::size_t block = 256;
  constexpr std::size_t ahead = 16;
  std::array<std::uint64_t, block> hashes;
  for (std::size_t b = begin; b < end; b += block) {
    const std::size_t e = std::min(end, b + block);
    for (std::size_t i = b; i < e; ++i)
      hashes[i - b] = hash_row(data.row(static_cast<PointId>(i)), data.dims());
    for (std::size_t i = b; i < e; ++i) {
      if (i + ahead < e) table.prefetch(hashes[i + ahead - b]);
      group[i] = table.find_or_add(hashes[i - b], static_cast<PointId>(i));
    }
  }
}

}  // namespace

DistinctPoints::DistinctPoints(const Dataset& data, TeamRef team) : original_(&data) {
  const std::size_t n = data.size();
  const int d = data.dims();
  if (n < 2) return;
  if (!likely_duplicates(data)) return;
  // Consecutive row ranges are grouped on the team's workers, each into a table of its own; the
  // ranges' groups then go, range by range and each range's in order, into one table, so groups
  // keep the order of their first (smallest) id; last, every row's group is renumbered.
  std::vector<std::uint32_t> group(n);
  const std::size_t ranges = std::clamp<std::size_t>(n / policy::DuplicateCollapse::min_rows_per_range, 1,
                                                     static_cast<std::size_t>(std::max(1, team.workers())));
  const auto range_begin = [&](std::size_t r) { return n * r / ranges; };
  std::vector<GroupTable> tables(ranges, GroupTable(data));
  team.run_tasks(ranges, [&](std::size_t r, int) {
    group_rows(data, range_begin(r), range_begin(r + 1), tables[r], group.data());
  });
  std::vector<PointId> first;  // per group: its smallest id
  if (ranges == 1) {
    first = tables[0].first();
  } else {
    GroupTable all(data);
    std::vector<std::vector<std::uint32_t>> renumber(ranges);
    for (std::size_t r = 0; r < ranges; ++r)
      for (std::size_t g = 0; g < tables[r].first().size(); ++g)
        renumber[r].push_back(all.find_or_add(tables[r].hashes()[g], tables[r].first()[g]));
    team.run_tasks(ranges, [&](std::size_t r, int) {
      for (std::size_t i = range_begin(r); i < range_begin(r + 1); ++i) group[i] = renumber[r][group[i]];
    });
    first = all.first();
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
