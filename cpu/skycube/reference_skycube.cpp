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
// eq dominate in different subspaces. Open addressing with generation stamps, so starting over
// for the next point costs O(1).
class RelationSet {
 public:
  void clear() {
    items_.clear();
    if (++generation_ == 0) {  // stamps wrapped around: really clear them once
      std::fill(stamps_.begin(), stamps_.end(), 0u);
      generation_ = 1;
    }
  }

  void insert(std::uint64_t key) {
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

  std::vector<std::uint64_t> slots_;
  std::vector<std::uint32_t> stamps_;
  std::uint32_t generation_ = 1;
  std::vector<std::uint64_t> items_;
};

// Sets bit m - 1 of `dominated` for every subspace m (level <= max_level) in which some other
// point dominates point p.
void dominated_subspaces(const Dataset& data, PointId p, int max_level, RelationSet& relations,
                         std::vector<Word>& dominated) {
  const int d = data.dims();
  const float* row_p = data.row(p);
  relations.clear();
  for (std::size_t q = 0; q < data.size(); ++q) {
    if (q == p) continue;
    const float* row_q = data.row(static_cast<PointId>(q));
    Mask le = 0;  // columns where q is at least as good as p
    Mask eq = 0;  // columns where q ties p
    for (int j = 0; j < d; ++j) {
      le |= static_cast<Mask>(row_q[j] <= row_p[j]) << j;
      eq |= static_cast<Mask>(row_q[j] == row_p[j]) << j;
    }
    // eq is a submask of le; when they are equal q is better nowhere and dominates in no
    // subspace (this covers exact duplicates and le == 0).
    if (le != eq) relations.insert((std::uint64_t{le} << 32) | eq);
  }

  std::fill(dominated.begin(), dominated.end(), Word{0});
  for (const std::uint64_t key : relations.items()) {
    const auto le = static_cast<Mask>(key >> 32);
    const auto eq = static_cast<Mask>(key);
    // q dominates p in m iff m is a submask of le and q is strictly better somewhere in m.
    for_each_submask(le, [&](Mask m) {
      if ((eq & m) != m && level(m) <= max_level) dominated[bit_of(m) / 32] |= Word{1} << (bit_of(m) % 32);
    });
  }
}

}  // namespace

HashCube reference_skycube(const Dataset& data) { return reference_skycube(data, data.dims()); }

HashCube reference_skycube(const Dataset& data, int max_level) {
  const int d = data.dims();
  if (d < 1 || d > max_skycube_columns)
    throw Error::argument("d", std::to_string(d), "1.." + std::to_string(max_skycube_columns),
                          "a skycube needs 2^d-1 subspaces; d <= " + std::to_string(max_skycube_columns) +
                              " supported");
  if (max_level < 1 || max_level > d)
    throw Error::argument("max_level", std::to_string(max_level), "1.." + std::to_string(d) + " (the column count)");
  const std::size_t n = data.size();
  if (n == 0) return HashCube(d, 0, max_level);

  // Per-thread state is built before the parallel region so nothing in it can throw before
  // the worksharing loop (a thread that skipped the loop would deadlock the others).
  const auto threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  std::vector<HashCubePart> parts(threads, HashCubePart(d, max_level));
  std::vector<RelationSet> relations(threads);
  std::vector<std::vector<Word>> dominated(threads, std::vector<Word>(words_for(d)));

  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::atomic<bool> failed{false};
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(dynamic, 8) num_threads(static_cast<int>(threads))
  for (std::int64_t p = 0; p < count; ++p) {
    if (failed.load(std::memory_order_relaxed)) continue;
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    try {
      const auto id = static_cast<PointId>(p);
      dominated_subspaces(data, id, max_level, relations[t], dominated[t]);
      parts[t].insert(id, dominated[t]);
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
