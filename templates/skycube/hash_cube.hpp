// The HashCube (paper 004, Appendix B.1): a skycube stored per point. For point p the
// 2^d - 1 bits "p is dominated in subspace m" (bit m - 1) are cut into 32-bit words; for
// every word position a map from word value to the ids having that word. A word that is
// all ones (dominated in all its 32 subspaces) is not stored, and a point that never
// appears is dominated everywhere (e.g. it is not in the extended skyline).
//
// Bits of subspaces that do not exist (past 2^d - 1 in the last word) or that are above
// the cube's max_level (a partial skycube) are always 1, so they cost nothing.
//
// Layout per word position: sorted keys, CSR offsets and ascending ids; no std::map.
// Devices fill HashCubeParts concurrently and merge them once at the end; a device may keep its
// part's words itself until then (kept_words.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/append_buffer.hpp"
#include "core/column_vector.hpp"
#include "core/subspace.hpp"
#include "core/task_team.hpp"
#include "templates/skycube/kept_words.hpp"

namespace sextant::skycube {

// Number of 32-bit words for a cube over d columns.
constexpr std::size_t words_for(int d) noexcept {
  return (subspace_count(d) + 31) / 32;
}

// Word w's bits that stand for real subspaces of level <= max_level; all other bits of a
// stored word are forced to 1.
Word valid_bits(int d, int max_level, std::size_t w) noexcept;

// The word positions (ascending) with a bit of a subspace of level <= max_level: a partial
// skycube's other words are all ones.
std::vector<std::uint32_t> stored_positions(int d, int max_level);

// Append-only, per device / per thread; cheap inserts, no sorting.
class HashCubePart {
 public:
  HashCubePart() = default;
  HashCubePart(int d, int max_level);

  // dominated[w] = word w of the point's "dominated in" bits (words_for(d) entries).
  void insert(PointId id, std::span<const Word> dominated);
  // Many points at once: dominated holds ids.size() rows of words_for(d) words, row i for ids[i].
  // Same result as inserting them one by one, several times faster: each cache line of words is
  // read once and appended branch-free to its word positions. Word positions are independent, so
  // the workers of `team` split them; the result is the same for any team.
  void insert_batch(std::span<const PointId> ids, std::span<const Word> dominated, TeamRef team = {});
  // The same with rows of positions.size() words: word k of a row goes to word position
  // positions[k] (ascending); every other position is all ones, so nothing is stored there. A
  // partial skycube thus costs only the words that hold its subspaces (see stored_positions).
  void insert_batch(std::span<const PointId> ids, std::span<const std::uint32_t> positions,
                    std::span<const Word> dominated, TeamRef team = {});

  // Removes the entries of every id for which drop(id) holds: undoes the inserts of a task that
  // failed part-way, before it runs again elsewhere (ids must stay distinct across parts).
  // (Words kept elsewhere are the keeper's to undo: kept_words.hpp.)
  template <class Drop>
  void erase_if(Drop&& drop) {
    for (auto& entries : words_) entries.erase_if([&](const Entry& e) { return drop(e.id); });
  }

  // Calls f(position, key, id) for every pair it holds, position by position (keys as stored:
  // the bits of missing or uncomputed subspaces set).
  template <class F>
  void for_each_entry(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (const Entry& e : words_[w].span()) f(w, e.key, e.id);
  }

  // The words a device keeps for this part (at most one keeper; nullptr drops it); from_parts
  // collects them.
  void keep(std::shared_ptr<KeptWords> kept) noexcept { kept_ = std::move(kept); }
  KeptWords* kept() const noexcept { return kept_.get(); }

  int dims() const noexcept { return d_; }
  int max_level() const noexcept { return max_level_; }

 private:
  friend class HashCube;
  struct Entry {
    Word key;
    PointId id;
  };
  int d_ = 0;
  int max_level_ = 0;
  std::vector<Word> valid_;                 // valid_bits per word position, computed once
  std::vector<AppendBuffer<Entry>> words_;  // per word position; all-ones words are not kept
  std::shared_ptr<KeptWords> kept_;
};

class HashCube {
 public:
  HashCube() = default;
  // An empty cube: every point dominated everywhere.
  HashCube(int d, std::size_t n_points, int max_level);
  // Builds the query structure from parts (ids must be distinct across parts), word positions
  // split over the workers of `team`; the result is the same for any team. The parts' kept words
  // are collected first (their keepers must be intact).
  static HashCube from_parts(int d, std::size_t n_points, int max_level, std::vector<HashCubePart> parts,
                             TeamRef team = {});

  int dims() const noexcept { return d_; }
  int max_level() const noexcept { return max_level_; }
  std::size_t point_count() const noexcept { return n_; }
  bool computed(Mask m) const noexcept;  // 0 < m < 2^d and level(m) <= max_level

  // Skyline of subspace m, ids ascending. Throws Error for m out of range or not computed.
  std::vector<PointId> skyline(Mask m) const;
  // The subspaces (ascending masks) in which `id` is a skyline member.
  std::vector<Mask> membership(PointId id) const;
  // Number of (word, id) entries stored: "ids stored" in summaries.
  std::size_t stored_ids() const noexcept;
  // Bytes of the query structure (keys, offsets, ids).
  std::size_t bytes() const noexcept;

  // This cube's point g standing for the points members[offsets[g] .. offsets[g + 1]) of a cube
  // over n_points points (offsets: point_count() + 1 entries; groups disjoint): each member gets
  // g's words. Word positions split over the workers of `team`.
  HashCube with_groups(std::size_t n_points, std::span<const std::uint32_t> offsets,
                       std::span<const PointId> members, TeamRef team = {}) const;

  // Combines two cubes over the same d, n and max_level with disjoint ids.
  static HashCube merge(const HashCube& a, const HashCube& b);

  // Binary file: magic "SXHC", version, d, max_level, n, then per word keys/offsets/ids.
  void save(std::ostream& out) const;
  // Reads `in` to its end: anything after the cube is an error (bad_input naming `origin`).
  static HashCube load(std::istream& in, const std::string& origin);

  friend bool operator==(const HashCube&, const HashCube&) = default;

 private:
  struct WordIndex {
    std::vector<Word> keys;              // ascending
    std::vector<std::uint32_t> offsets;  // keys.size() + 1 entries into ids
    ColumnVector<PointId> ids;           // ascending within a key; sized, then written
    friend bool operator==(const WordIndex&, const WordIndex&) = default;
  };
  class WordAssembler;                // one word position's index from the parts' entries (hash_cube.cpp)
  class KeptSink;                     // kept words written into the cube (hash_cube.cpp)
  void check_subspace(Mask m) const;  // throws Error unless computed(m)

  int d_ = 0;
  int max_level_ = 0;
  std::size_t n_ = 0;
  std::vector<WordIndex> words_;
};

}  // namespace sextant::skycube
