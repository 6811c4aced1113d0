#include "cpu/skycube/reference_skycube.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sextant::skycube {
namespace {

// The distinct (le, eq) relationships of the other points to one point, packed as le << 32 | eq.
// Deduplicating by le alone would be wrong: with ties, two points with the same le but different
// eq dominate in different subspaces. Up to 10 columns a bit table indexed by (le, eq) (128 KiB at
// most); above, open addressing with generation stamps. Both start over for the next point in
// O(relations), not O(table).
class RelationSet {
 public:
  explicit RelationSet(int d) : d_(d) {
    if (d <= max_direct_columns) table_.assign((std::size_t{1} << (2 * d)) / 64 + 1, 0);
  }

  void clear() {
    if (!table_.empty()) {
      for (const std::uint64_t key : items_) {
        const std::size_t i = direct_index(key);
        table_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
      }
    } else if (++generation_ == 0) {  // stamps wrapped around: really clear them once
      std::fill(stamps_.begin(), stamps_.end(), 0u);
      generation_ = 1;
    }
    items_.clear();
  }

  void insert(std::uint64_t key) {
    if (!table_.empty()) {
      const std::size_t i = direct_index(key);
      const std::uint64_t bit = std::uint64_t{1} << (i % 64);
      if ((table_[i / 64] & bit) != 0) return;
      table_[i / 64] |= bit;
      items_.push_back(key);
      return;
    }
    if (2 * (items_.size() + 1) > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      if (stamps_[i] != generation_) {
        stamps_[i] = generation_;
        slots_[i] = key;
        items_.push_back(key);
        return;
      }
      if (slots_[i] == key) return;
    }
  }

  const std::vector<std::uint64_t>& items() const noexcept { return items_; }

 private:
  static constexpr int max_direct_columns = 10;

  std::size_t direct_index(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>(key >> 32) | (static_cast<std::size_t>(key & 0xFFFFFFFFu) << d_);
  }

  static std::size_t hash(std::uint64_t x) noexcept {  // splitmix64 finaliser
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::size_t>(x ^ (x >> 31));
  }

  void grow() {
    slots_.assign(std::max<std::size_t>(64, 2 * slots_.size()), 0);
    stamps_.assign(slots_.size(), 0u);
    generation_ = 1;
    const std::vector<std::uint64_t> items = std::move(items_);
    items_.clear();
    for (const std::uint64_t key : items) insert(key);
  }

  int d_;
  std::vector<std::uint64_t> table_;  // the bit table, when d <= max_direct_columns
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint32_t> stamps_;
  std::uint32_t generation_ = 1;
  std::vector<std::uint64_t> items_;
};

// Per-thread scratch.
struct Scratch {
  static constexpr std::size_t block = 256;
  explicit Scratch(int d) : relations(d), dominated(words_for(d)), le(block), eq(block) {}
  RelationSet relations;
  std::vector<Word> dominated;
  std::vector<Mask> le;  // per point of a block: columns where it is at least as good as p
  std::vector<Mask> eq;  // per point of a block: columns where it ties p
};

// Sets bit m - 1 of scratch.dominated for every computed subspace m (computed[m] != 0) in which some
// other point dominates point p. `columns` is the data column-major (column j at j * n), so the
// comparisons of p against a block of points vectorise.
void dominated_subspaces(const Dataset& data, const std::vector<float>& columns, PointId p,
                         const std::vector<std::uint8_t>& computed, Scratch& scratch) {
  const int d = data.dims();
  const std::size_t n = data.size();
  const float* row_p = data.row(p);
  scratch.relations.clear();
  for (std::size_t start = 0; start < n; start += Scratch::block) {
    const std::size_t size = std::min(Scratch::block, n - start);
    Mask* le = scratch.le.data();
    Mask* eq = scratch.eq.data();
    std::fill(le, le + size, Mask{0});
    std::fill(eq, eq + size, Mask{0});
    for (int j = 0; j < d; ++j) {
      const float* column = columns.data() + static_cast<std::size_t>(j) * n + start;
      const float v = row_p[j];
      for (std::size_t i = 0; i < size; ++i) {
        le[i] |= static_cast<Mask>(column[i] <= v) << j;
        eq[i] |= static_cast<Mask>(column[i] == v) << j;
      }
    }
    for (std::size_t i = 0; i < size; ++i) {
      // eq is a submask of le; when they are equal q is better nowhere and dominates in no
      // subspace (this covers exact duplicates, q == p and le == 0).
      if (le[i] != eq[i]) scratch.relations.insert((std::uint64_t{le[i]} << 32) | eq[i]);
    }
  }

  std::fill(scratch.dominated.begin(), scratch.dominated.end(), Word{0});
  Word* dominated = scratch.dominated.data();
  for (const std::uint64_t key : scratch.relations.items()) {
    const auto le = static_cast<Mask>(key >> 32);
    const auto eq = static_cast<Mask>(key);
    // q dominates p in m iff m is a submask of le and q is strictly better somewhere in m.
    for_each_submask(le, [&](Mask m) {
      if ((eq & m) != m && computed[m] != 0) dominated[bit_of(m) / 32] |= Word{1} << (bit_of(m) % 32);
    });
  }
}

}  // namespace

HashCube reference_skycube(const Dataset& data) {
  return reference_skycube(data, data.dims());
}

HashCube reference_skycube(const Dataset& data, int max_level) {
  const int d = data.dims();
  check_skycube_shape(d, max_level);
  const std::size_t n = data.size();
  if (n == 0) return HashCube(d, 0, max_level);

  // Per-thread state is built before the parallel region so nothing in it can throw before
  // the worksharing loop (a thread that skipped the loop would deadlock the others).
  const int team = std::max(1, omp_get_max_threads());
  const auto threads = static_cast<std::size_t>(team);
  std::vector<HashCubePart> parts(threads, HashCubePart(d, max_level));
  std::vector<Scratch> scratch(threads, Scratch(d));
  // level(m) <= max_level as a table: the baseline build has no popcount instruction.
  std::vector<std::uint8_t> computed(std::size_t{1} << d);
  for (Mask m = 1; m <= full_mask(d); ++m) computed[m] = level(m) <= max_level ? 1 : 0;
  std::vector<float> columns(n * static_cast<std::size_t>(d));
  for (std::size_t q = 0; q < n; ++q)
    for (int j = 0; j < d; ++j)
      columns[static_cast<std::size_t>(j) * n + q] = data(static_cast<PointId>(q), j);

  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::atomic<bool> failed{false};
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(dynamic, 8) num_threads(team)
  for (std::int64_t p = 0; p < count; ++p) {
    if (failed.load(std::memory_order_relaxed)) continue;
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    try {
      const auto id = static_cast<PointId>(p);
      dominated_subspaces(data, columns, id, computed, scratch[t]);
      parts[t].insert(id, scratch[t].dominated);
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (failure) std::rethrow_exception(failure);
  return HashCube::from_parts(d, n, max_level, std::move(parts));
}

}  // namespace sextant::skycube
