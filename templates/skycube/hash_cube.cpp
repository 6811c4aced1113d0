#include "templates/skycube/hash_cube.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <exception>
#include <istream>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube {
namespace {

constexpr Word all_ones = ~Word{0};

// Runs body(t) for t = 0 .. count - 1 on the team's workers. The first exception stops the run:
// on_failure() runs on the failing worker (to make the others stop early) and the team rethrows.
template <class Body, class OnFailure>
void run_bodies(const TeamRef& team, std::size_t count, const Body& body, const OnFailure& on_failure) {
  team.run_tasks(count, [&](std::size_t t, int) {
    try {
      body(t);
    } catch (...) {
      on_failure();
      throw;
    }
  });
}
constexpr std::uint32_t format_version = 1;
constexpr std::size_t max_points = 0xFFFFFFFEu;  // ids are 32-bit, as in Dataset
constexpr std::array<char, 4> magic = {'S', 'X', 'H', 'C'};

void check_shape(int d, std::size_t n, int max_level) {
  check_skycube_shape(d, max_level);
  if (n > max_points)
    throw Error::argument("n", std::to_string(n), "at most " + std::to_string(max_points) + " points",
                          "too many points for 32-bit ids");
}

std::string hex(Word w) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(w >> shift) & 0xFu];
  return s;
}

// (key, id) packed so that integer order is (key, id) order.
constexpr std::uint64_t pack(Word key, PointId id) noexcept {
  return (std::uint64_t{key} << 32) | id;
}
constexpr Word key_of(std::uint64_t packed) noexcept {
  return static_cast<Word>(packed >> 32);
}
constexpr PointId id_of(std::uint64_t packed) noexcept {
  return static_cast<PointId>(packed);
}

// LSD radix sort, 8 bits a pass; passes whose digit is the same for every element (e.g. the high
// bytes of ids when n is small) are skipped. std::sort for small inputs.
void sort_packed(std::vector<std::uint64_t>& v, std::vector<std::uint64_t>& scratch) {
  if (v.size() < 4096) {
    std::sort(v.begin(), v.end());
    return;
  }
  std::array<std::array<std::size_t, 256>, 8> counts{};
  for (const std::uint64_t x : v)
    for (int b = 0; b < 8; ++b) ++counts[b][(x >> (8 * b)) & 0xFFu];
  scratch.resize(v.size());
  for (int b = 0; b < 8; ++b) {
    auto& c = counts[b];
    if (std::find(c.begin(), c.end(), v.size()) != c.end()) continue;
    std::size_t sum = 0;
    for (std::size_t& x : c) sum += std::exchange(x, sum);
    for (const std::uint64_t x : v) scratch[c[(x >> (8 * b)) & 0xFFu]++] = x;
    v.swap(scratch);
  }
}

// Marks ids per word position to catch an id stored twice in one word (ids must be disjoint
// across parts / merged cubes): one bit per point, so a worker's marks stay in its cache, cleared
// after each word by walking the ids it marked.
class SeenIds {
 public:
  explicit SeenIds(std::size_t n) : n_(n) {}
  // True when `id` was already marked.
  bool mark(PointId id) {
    if (bits_.empty()) bits_.assign((n_ + 63) / 64, 0);
    const std::uint64_t bit = std::uint64_t{1} << (id % 64);
    return (std::exchange(bits_[id / 64], bits_[id / 64] | bit) & bit) != 0;
  }
  bool marked(PointId id) const { return !bits_.empty() && (bits_[id / 64] >> (id % 64) & 1u) != 0; }
  void unmark(PointId id) {
    if (!bits_.empty()) bits_[id / 64] &= ~(std::uint64_t{1} << (id % 64));
  }

 private:
  std::size_t n_;
  std::vector<std::uint64_t> bits_;
};

// z = the union of word indexes x and y over disjoint ids: keys ascending, a key in both takes
// both id lists merged.
template <class Index>
void merge_indexes(const Index& x, const Index& y, Index& z) {
  z.keys.clear();
  z.ids.clear();
  z.offsets.assign(1, 0);
  z.keys.reserve(x.keys.size() + y.keys.size());
  z.ids.reserve(x.ids.size() + y.ids.size());
  const auto append = [&z](Word key, const Index& from, std::size_t k) {
    z.keys.push_back(key);
    z.ids.insert(z.ids.end(), from.ids.begin() + from.offsets[k], from.ids.begin() + from.offsets[k + 1]);
    z.offsets.push_back(static_cast<std::uint32_t>(z.ids.size()));
  };
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < x.keys.size() || j < y.keys.size()) {
    if (j == y.keys.size() || (i < x.keys.size() && x.keys[i] < y.keys[j])) {
      append(x.keys[i], x, i);
      ++i;
    } else if (i == x.keys.size() || y.keys[j] < x.keys[i]) {
      append(y.keys[j], y, j);
      ++j;
    } else {  // same key in both: merge the two ascending id lists
      z.keys.push_back(x.keys[i]);
      std::merge(x.ids.begin() + x.offsets[i], x.ids.begin() + x.offsets[i + 1], y.ids.begin() + y.offsets[j],
                 y.ids.begin() + y.offsets[j + 1], std::back_inserter(z.ids));
      z.offsets.push_back(static_cast<std::uint32_t>(z.ids.size()));
      ++i;
      ++j;
    }
  }
}

// ---- little-endian binary I/O, independent of the host's byte order (arrays go as they are
// on a little-endian host) ----------------------------------------------------------------

void put_u32(std::ostream& out, std::uint32_t v) {
  std::array<char, 4> b{};
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
  out.write(b.data(), b.size());
}

void put_u64(std::ostream& out, std::uint64_t v) {
  put_u32(out, static_cast<std::uint32_t>(v));
  put_u32(out, static_cast<std::uint32_t>(v >> 32));
}

template <class Values>
void put_u32_array(std::ostream& out, const Values& values) {
  if constexpr (std::endian::native == std::endian::little) {  // the file's order: written as it is
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    return;
  }
  constexpr std::size_t chunk = 4096;
  std::array<char, chunk * 4> buffer{};
  for (std::size_t start = 0; start < values.size(); start += chunk) {
    const std::size_t count = std::min(chunk, values.size() - start);
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t k = 0; k < 4; ++k)
        buffer[4 * i + k] = static_cast<char>((values[start + i] >> (8 * k)) & 0xFFu);
    out.write(buffer.data(), static_cast<std::streamsize>(count * 4));
  }
}

class Reader {
 public:
  Reader(std::istream& in, const std::string& origin) : in_(in), origin_(origin) {}

  [[noreturn]] void fail(std::string_view what) const { throw Error::in_file(origin_, 0, 0, what); }

  void read(unsigned char* p, std::size_t count, std::string_view what) {
    in_.read(reinterpret_cast<char*>(p), static_cast<std::streamsize>(count));
    if (static_cast<std::size_t>(in_.gcount()) != count)
      fail("truncated HashCube file: it ends inside " + std::string(what));
  }
  std::uint32_t u32(std::string_view what) {
    std::array<unsigned char, 4> b{};
    read(b.data(), b.size(), what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{b[i]} << (8 * i);
    return v;
  }
  std::uint64_t u64(std::string_view what) {
    const std::uint64_t lo = u32(what);
    return lo | (std::uint64_t{u32(what)} << 32);
  }
  // Reads in chunks so that a corrupt count runs into end-of-file before it allocates much.
  template <class Values>
  void u32_array(Values& out, std::uint64_t count, std::string_view what) {
    constexpr std::size_t chunk = 1 << 16;
    out.clear();
    while (out.size() < count) {
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, count - out.size()));
      if constexpr (std::endian::native == std::endian::little) {  // the file's order: read in place
        const std::size_t at = out.size();
        out.resize(at + take);
        read(reinterpret_cast<unsigned char*>(out.data() + at), take * 4, what);
        continue;
      }
      buffer_.resize(take * 4);
      read(buffer_.data(), buffer_.size(), what);
      for (std::size_t i = 0; i < take; ++i) {
        std::uint32_t v = 0;
        for (std::size_t k = 0; k < 4; ++k) v |= std::uint32_t{buffer_[4 * i + k]} << (8 * k);
        out.push_back(v);
      }
    }
  }

 private:
  std::istream& in_;
  const std::string& origin_;
  std::vector<unsigned char> buffer_;
};

}  // namespace

Word valid_bits(int d, int max_level, std::size_t w) noexcept {
  if (d < 1 || d > max_columns) return 0;
  const std::uint64_t last = (std::uint64_t{1} << d) - 1;
  Word bits = 0;
  for (unsigned b = 0; b < 32; ++b) {
    const std::uint64_t m = std::uint64_t{w} * 32 + b + 1;
    if (m <= last && std::popcount(m) <= max_level) bits |= Word{1} << b;
  }
  return bits;
}

// ---- HashCubePart ----------------------------------------------------------------------------

HashCubePart::HashCubePart(int d, int max_level) : d_(d), max_level_(max_level) {
  check_shape(d, 0, max_level);
  valid_.resize(words_for(d));
  for (std::size_t w = 0; w < valid_.size(); ++w) valid_[w] = valid_bits(d, max_level, w);
  words_.resize(valid_.size());
}

void HashCubePart::insert(PointId id, std::span<const Word> dominated) {
  insert_batch(std::span<const PointId>(&id, 1), dominated);
}

std::vector<std::uint32_t> stored_positions(int d, int max_level) {
  std::vector<std::uint32_t> out;
  if (d < 1 || d > max_columns || max_level < 1) return out;
  const std::size_t words = words_for(d);
  if (max_level >= d) {
    out.resize(words);
    for (std::size_t w = 0; w < words; ++w) out[w] = static_cast<std::uint32_t>(w);
    return out;
  }
  // Only the masks of level <= max_level: C(d, 1) + ... + C(d, max_level) of them.
  const auto visit = [&](auto&& self, Mask mask, int from, int left) -> void {
    if (mask != 0) out.push_back(static_cast<std::uint32_t>((std::size_t{mask} - 1) / 32));
    if (left == 0) return;
    for (int c = from; c < d; ++c) self(self, mask | (Mask{1} << c), c + 1, left - 1);
  };
  visit(visit, 0, 0, max_level);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void HashCubePart::insert_batch(std::span<const PointId> ids, std::span<const Word> dominated, TeamRef team) {
  insert_batch(ids, {}, dominated, std::move(team));
}

void HashCubePart::insert_batch(std::span<const PointId> ids, std::span<const std::uint32_t> positions,
                                std::span<const Word> dominated, TeamRef team) {
  const bool all = positions.empty();
  const std::size_t words = all ? words_.size() : positions.size();
  if (dominated.size() != ids.size() * words || (!all && positions.back() >= words_.size()))
    throw Error::internal("HashCubePart::insert_batch: " + std::to_string(dominated.size()) + " words for " +
                          std::to_string(ids.size()) + " points of " + std::to_string(words) +
                          " words a row in a cube of " + std::to_string(words_.size()) +
                          " words (d = " + std::to_string(d_) + ")");
  const auto position = [&](std::size_t k) { return all ? k : std::size_t{positions[k]}; };
  // Tiles of 256 points by a cache line of word positions: each point's line is read once while
  // the tile's rows stay in cache, and each word is written to its position's buffer whether kept
  // or not (the buffer advances only past kept ones), so no branch depends on the data.
  constexpr std::size_t line = 64 / sizeof(Word);
  constexpr std::size_t tile = 256;
  const auto insert_lines = [&](std::size_t begin, std::size_t end) {  // word positions [begin, end)
    for (std::size_t p0 = 0; p0 < ids.size(); p0 += tile) {
      const std::size_t count = std::min(tile, ids.size() - p0);
      for (std::size_t w0 = begin; w0 < end; w0 += line) {
        const std::size_t width = std::min(line, end - w0);
        Entry* out[line];
        Entry* first[line];
        Word invalid[line];
        for (std::size_t k = 0; k < width; ++k) {
          out[k] = first[k] = words_[position(w0 + k)].reserve_more(count);
          invalid[k] = ~valid_[position(w0 + k)];
        }
        for (std::size_t i = p0; i < p0 + count; ++i) {
          const Word* row = dominated.data() + i * words + w0;
          for (std::size_t k = 0; k < width; ++k) {
            const Word key = row[k] | invalid[k];
            *out[k] = {key, ids[i]};
            out[k] += key != all_ones ? 1 : 0;
          }
        }
        for (std::size_t k = 0; k < width; ++k)
          words_[position(w0 + k)].commit(static_cast<std::size_t>(out[k] - first[k]));
      }
    }
  };
  const std::size_t lines = (words + line - 1) / line;
  const std::size_t runs = std::min(lines, static_cast<std::size_t>(std::max(team.workers(), 1)));
  if (runs <= 1) {
    insert_lines(0, words);
    return;
  }
  // Each worker a contiguous run of whole lines.
  run_bodies(
      team, runs,
      [&](std::size_t t) {
        insert_lines(std::min(words, lines * t / runs * line),
                     std::min(words, lines * (t + 1) / runs * line));
      },
      [] {});
}

// ---- HashCube: construction ------------------------------------------------------------------

HashCube::HashCube(int d, std::size_t n_points, int max_level) : d_(d), max_level_(max_level), n_(n_points) {
  check_shape(d, n_points, max_level);
  words_.resize(words_for(d));
  for (WordIndex& index : words_) index.offsets.assign(1, 0);
}

// ---- HashCube: one word position from the parts --------------------------------------------
//
// A word position receives (key, id) pairs from every part in no useful order and needs its keys
// ascending, each key's ids ascending, and every id at most once. A dense word (pairs for a good
// share of all ids) gives each distinct key a slot in a small hash table and marks each id's slot in
// an array over all ids; one pass over the ids in ascending order then drops every id into its key's
// range, already in order: no sort of the pairs. A sparse word packs (key, id) and sorts.
class HashCube::WordAssembler {
 public:
  explicit WordAssembler(std::size_t n_points) : n_(n_points), seen_(n_points) {}

  void assemble(std::span<const std::span<const HashCubePart::Entry>> sources, Word invalid,
                WordIndex& index) {
    std::size_t count = 0;
    for (const auto& source : sources) count += source.size();
    if (count * policy::HashCubeAssembly::dense_share < n_ || count == 0 ||
        !assemble_dense(sources, count, invalid, index))
      assemble_sorted(sources, invalid, index);
  }

 private:
  static constexpr std::uint64_t empty_entry = all_ones;  // key all ones: never stored
  using Slot = std::uint32_t;  // 16-bit slots (a smaller array over the ids) measured slower

  void check_id(PointId id) const {
    if (id >= n_) [[unlikely]]
      out_of_range(id);
  }
  [[noreturn]] void out_of_range(PointId id) const {
    throw Error(ErrorKind::bad_argument, "HashCube::from_parts: point id " + std::to_string(id) +
                                             " is out of range for a cube of " + std::to_string(n_) +
                                             " points");
  }
  [[noreturn]] static void inserted_twice(PointId id) {
    throw Error(ErrorKind::bad_argument,
                "HashCube::from_parts: point id " + std::to_string(id) +
                    " was inserted more than once (ids must be distinct across parts)");
  }

  // ---- dense: key slots and an array over all ids ----
  // Slots are 1, 2, ...; slot 0 means "no pair" and fills a spare last id, so that the pass over
  // the ids stores every id without a branch on whether the word holds it. False, with nothing
  // stored, when the keys are nearly as many as the pairs: sorting the pairs is then cheaper.
  bool assemble_dense(std::span<const std::span<const HashCubePart::Entry>> sources, std::size_t count,
                      Word invalid, WordIndex& index) {
    if (slot_of_id_.empty()) slot_of_id_.assign(n_, 0);
    start_table(count);
    const std::size_t key_limit = count / policy::HashCubeAssembly::dense_max_key_share + 1;
    Slot* const slot_of_id = slot_of_id_.data();
    PointId low = ~PointId{0};
    PointId high = 0;
    for (const auto& source : sources)
      for (const HashCubePart::Entry& e : source) {
        check_id(e.id);
        const Word key = e.key | invalid;
        if (key == all_ones) continue;
        const Slot slot = slot_for(key);
        if (keys_.size() > key_limit) {
          if (low <= high) std::fill(slot_of_id + low, slot_of_id + high + 1, Slot{0});
          return false;
        }
        if (slot_of_id[e.id] != 0) inserted_twice(e.id);
        slot_of_id[e.id] = slot;
        ++fill_[slot];
        low = std::min(low, e.id);
        high = std::max(high, e.id);
      }
    const std::size_t distinct = keys_.size() - 1;
    if (distinct == 0) return true;
    // Keys ascending; fill_[slot] turns from the key's count into where its next id goes.
    order_.clear();
    for (std::size_t slot = 1; slot <= distinct; ++slot)
      order_.push_back(pack(keys_[slot], static_cast<PointId>(slot)));
    sort_packed(order_, scratch_);
    index.keys.resize(distinct);
    index.offsets.resize(distinct + 1);
    index.offsets[0] = 0;
    for (std::size_t rank = 0; rank < distinct; ++rank) {
      const std::uint32_t slot = id_of(order_[rank]);
      index.keys[rank] = key_of(order_[rank]);
      index.offsets[rank + 1] = index.offsets[rank] + fill_[slot];
      fill_[slot] = index.offsets[rank];
    }
    const std::uint32_t stored = index.offsets.back();
    index.ids.resize(stored + 1);  // + the spare
    fill_[0] = stored;
    PointId* const ids = index.ids.data();
    std::uint32_t* const fill = fill_.data();
    for (std::size_t id = low; id <= high; ++id) {
      const Slot slot = slot_of_id[id];
      const std::uint32_t at = fill[slot];
      ids[at] = static_cast<PointId>(id);
      fill[slot] = at + (slot != 0 ? 1 : 0);
      slot_of_id[id] = 0;
    }
    index.ids.pop_back();
    return true;
  }

  // An empty table with room for a word's keys; grows as they come.
  void start_table(std::size_t count) {
    keys_.assign(1, all_ones);  // slot 0: no pair
    fill_.assign(1, 0);
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(64, 2 * std::min<std::size_t>(count, 4096)));
    table_.assign(size, empty_entry);
    shift_ = 64 - std::countr_zero(size);
  }
  std::size_t home(Word key) const noexcept {  // multiplicative hashing: the product's top bits
    return static_cast<std::size_t>((std::uint64_t{key} * 0x9E3779B97F4A7C15u) >> shift_);
  }
  // The key's slot (1, 2, ... in order of first sight), added when new.
  Slot slot_for(Word key) {
    const std::uint64_t* const table = table_.data();
    const std::size_t mask = table_.size() - 1;
    std::size_t h = home(key);
    for (;; h = (h + 1) & mask) {
      const std::uint64_t entry = table[h];
      if (static_cast<Word>(entry) == key) return static_cast<Slot>(entry >> 32);
      if (entry == empty_entry) break;
    }
    const auto slot = static_cast<Slot>(keys_.size());
    keys_.push_back(key);
    fill_.push_back(0);
    table_[h] = (std::uint64_t{slot} << 32) | key;
    if (2 * keys_.size() > table_.size()) grow_table();
    return slot;
  }
  void grow_table() {
    table_.assign(2 * table_.size(), empty_entry);
    --shift_;
    const std::size_t mask = table_.size() - 1;
    for (std::size_t slot = 1; slot < keys_.size(); ++slot) {
      std::size_t h = home(keys_[slot]);
      while (table_[h] != empty_entry) h = (h + 1) & mask;
      table_[h] = (std::uint64_t{slot} << 32) | keys_[slot];
    }
  }

  // ---- sparse: sort the (key, id) pairs ----
  void assemble_sorted(std::span<const std::span<const HashCubePart::Entry>> sources, Word invalid,
                       WordIndex& index) {
    packed_.clear();
    for (const auto& source : sources)
      for (const HashCubePart::Entry& e : source) {
        check_id(e.id);
        const Word key = e.key | invalid;
        if (key != all_ones) packed_.push_back(pack(key, e.id));
      }
    sort_packed(packed_, scratch_);
    index.ids.reserve(packed_.size());
    for (const std::uint64_t x : packed_) {
      const PointId id = id_of(x);
      if (seen_.mark(id)) inserted_twice(id);
      if (index.keys.empty() || key_of(x) != index.keys.back()) {
        if (!index.keys.empty()) index.offsets.push_back(static_cast<std::uint32_t>(index.ids.size()));
        index.keys.push_back(key_of(x));
      }
      index.ids.push_back(id);
    }
    if (!index.keys.empty()) index.offsets.push_back(static_cast<std::uint32_t>(index.ids.size()));
    for (const PointId id : index.ids) seen_.unmark(id);
  }

  std::size_t n_;
  // dense
  std::vector<Slot> slot_of_id_;      // n_ entries, all 0 between words
  std::vector<std::uint64_t> table_;  // (slot << 32) | key, or empty_entry
  int shift_ = 0;
  std::vector<Word> keys_;            // per slot
  std::vector<std::uint32_t> fill_;   // per slot: its count, then its next position in ids
  std::vector<std::uint64_t> order_;  // (key, slot) sorted
  // sparse
  SeenIds seen_;
  std::vector<std::uint64_t> packed_;
  std::vector<std::uint64_t> scratch_;
};

// Kept words go straight into the cube's word indexes: the collector writes a word's ids where
// word() says, so nothing is copied twice.
class HashCube::KeptSink final : public KeptWordsSink {
 public:
  explicit KeptSink(HashCube& cube) : cube_(cube), written_(cube.words_.size()) {}

  std::span<PointId> word(std::size_t position, std::span<const Word> keys,
                          std::span<const std::uint32_t> counts) override {
    if (position >= cube_.words_.size() || keys.size() != counts.size() ||
        written_[position].exchange(true, std::memory_order_relaxed))
      throw Error::internal("HashCube::from_parts: kept words for word position " + std::to_string(position) +
                            " of " + std::to_string(cube_.words_.size()) + " given twice or malformed");
    const Word invalid = ~valid_bits(cube_.d_, cube_.max_level_, position);
    WordIndex& index = cube_.words_[position];
    index.keys.assign(keys.begin(), keys.end());
    index.offsets.resize(keys.size() + 1);
    index.offsets[0] = 0;
    std::size_t total = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if ((k > 0 && keys[k] <= keys[k - 1]) || keys[k] == all_ones || (keys[k] & invalid) != invalid ||
          counts[k] == 0)
        throw Error::internal("HashCube::from_parts: kept words for word position " +
                              std::to_string(position) +
                              " have keys out of order, an all-ones key, a missing bit or an empty key");
      total += counts[k];
      index.offsets[k + 1] = static_cast<std::uint32_t>(total);
    }
    if (total > cube_.n_)
      throw Error::internal("HashCube::from_parts: " + std::to_string(total) + " kept ids at word position " +
                            std::to_string(position) + " for " + std::to_string(cube_.n_) + " points");
    index.ids.resize(total);
    return index.ids;
  }

  bool written(std::size_t position) const noexcept {
    return written_[position].load(std::memory_order_relaxed);
  }

 private:
  HashCube& cube_;
  std::vector<std::atomic<bool>> written_;
};

HashCube HashCube::from_parts(int d, std::size_t n_points, int max_level, std::vector<HashCubePart> parts,
                              TeamRef team) {
  HashCube cube(d, n_points, max_level);
  std::vector<KeptWords*> kept;
  for (const HashCubePart& part : parts) {
    if (part.kept_) kept.push_back(part.kept_.get());
    if (part.d_ == 0 && part.words_.empty()) continue;  // default-constructed: holds nothing
    if (part.d_ != d || part.max_level_ != max_level)
      throw Error(ErrorKind::bad_argument, "HashCube::from_parts: a part has d = " + std::to_string(part.d_) +
                                               ", max_level = " + std::to_string(part.max_level_) +
                                               " but the cube has d = " + std::to_string(d) +
                                               ", max_level = " + std::to_string(max_level));
  }

  KeptSink sink(cube);
  if (!kept.empty()) {
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    for (KeptWords* k : kept)
      if (!k->intact())
        throw Error::internal(
            "HashCube::from_parts: a part's kept words were lost with their device "
            "and not computed again");
    kept.front()->collect(kept, sink, team);
  }

  // Word positions are independent: each thread takes the next one, with its own buffers and
  // duplicate marks. The result does not depend on the thread count. A position that also has
  // kept words merges the two indexes.
  const std::size_t word_count = cube.words_.size();
  const std::size_t workers =
      std::min<std::size_t>(word_count, static_cast<std::size_t>(std::max(team.workers(), 1)));
  std::atomic<std::size_t> next{0};
  const auto work = [&](std::size_t) {
    WordAssembler assembler(n_points);
    WordIndex from_pairs;
    WordIndex both;
    SeenIds seen(n_points);
    for (std::size_t w; (w = next.fetch_add(1)) < word_count;) {
      std::vector<std::span<const HashCubePart::Entry>> sources;
      bool any = false;
      for (const HashCubePart& part : parts)
        if (!part.words_.empty()) {
          sources.push_back(part.words_[w].span());
          any = any || !sources.back().empty();
        }
      if (!sink.written(w)) {
        assembler.assemble(sources, ~valid_bits(d, max_level, w), cube.words_[w]);
      } else if (any) {
        from_pairs = WordIndex{{}, {0}, {}};
        assembler.assemble(sources, ~valid_bits(d, max_level, w), from_pairs);
        WordIndex& index = cube.words_[w];
        for (const PointId id : index.ids) seen.mark(id);
        for (const PointId id : from_pairs.ids)
          if (seen.marked(id))
            throw Error(ErrorKind::bad_argument, "HashCube::from_parts: point id " + std::to_string(id) +
                                                     " is both kept by a device and in a part");
        for (const PointId id : index.ids) seen.unmark(id);
        merge_indexes(index, from_pairs, both);
        std::swap(index, both);
      }
      for (HashCubePart& part : parts)
        if (!part.words_.empty()) part.words_[w].release();  // lowers the peak memory
    }
  };
  run_bodies(team, workers, work, [&] { next = word_count; });  // the others stop at their next word
  return cube;
}

HashCube HashCube::with_groups(std::size_t n_points, std::span<const std::uint32_t> offsets,
                               std::span<const PointId> members, TeamRef team) const {
  if (offsets.size() != n_ + 1 || offsets.back() != members.size() || members.size() > n_points)
    throw Error::internal("HashCube::with_groups: " + std::to_string(offsets.size()) + " offsets and " +
                          std::to_string(members.size()) + " members for a cube of " + std::to_string(n_) +
                          " points expanded to " + std::to_string(n_points));
  HashCube cube(d_, n_points, max_level_);
  const std::size_t word_count = words_.size();
  // A word whose groups hold a large share of all points is filled by one pass over the ids in
  // ascending order (each id to its group's key: already sorted); the others pack (key, id) pairs
  // of their members and sort them. The pass needs each id's group, built once.
  std::vector<std::size_t> expanded(word_count, 0);
  bool any_scan = false;
  for (std::size_t w = 0; w < word_count; ++w) {
    for (const PointId g : words_[w].ids) expanded[w] += offsets[g + 1] - offsets[g];
    any_scan = any_scan || expanded[w] * policy::GroupExpansion::scan_share >= n_points;
  }
  constexpr std::uint32_t no_group = 0xFFFFFFFFu;
  std::vector<std::uint32_t> group_of;
  if (any_scan) {
    group_of.assign(n_points, no_group);
    for (std::size_t g = 0; g + 1 < offsets.size(); ++g)
      for (std::uint32_t m = offsets[g]; m < offsets[g + 1]; ++m)
        group_of[members[m]] = static_cast<std::uint32_t>(g);
  }
  const std::size_t workers =
      std::min<std::size_t>(word_count, static_cast<std::size_t>(std::max(team.workers(), 1)));
  std::atomic<std::size_t> next{0};
  const auto work = [&](std::size_t) {
    std::vector<std::uint64_t> packed;
    std::vector<std::uint64_t> scratch;
    std::vector<std::uint32_t> key_index;  // per group: its key's index in this word, or no_group
    for (std::size_t w; (w = next.fetch_add(1)) < word_count;) {
      const WordIndex& from = words_[w];
      WordIndex& index = cube.words_[w];
      if (expanded[w] * policy::GroupExpansion::scan_share >= n_points) {
        key_index.assign(n_, no_group);
        index.keys = from.keys;
        index.offsets.assign(1, 0);
        for (std::size_t k = 0; k < from.keys.size(); ++k) {
          std::uint32_t size = 0;
          for (std::uint32_t i = from.offsets[k]; i < from.offsets[k + 1]; ++i) {
            key_index[from.ids[i]] = static_cast<std::uint32_t>(k);
            size += offsets[from.ids[i] + 1] - offsets[from.ids[i]];
          }
          index.offsets.push_back(index.offsets.back() + size);
        }
        index.ids.resize(index.offsets.back());
        std::vector<std::uint32_t> fill(index.offsets.begin(), index.offsets.end() - 1);
        for (std::size_t id = 0; id < n_points; ++id) {
          const std::uint32_t g = group_of[id];
          if (g == no_group || key_index[g] == no_group) continue;
          index.ids[fill[key_index[g]]++] = static_cast<PointId>(id);
        }
        continue;
      }
      packed.clear();
      for (std::size_t k = 0; k < from.keys.size(); ++k)
        for (std::uint32_t i = from.offsets[k]; i < from.offsets[k + 1]; ++i) {
          const PointId g = from.ids[i];
          for (std::uint32_t m = offsets[g]; m < offsets[g + 1]; ++m)
            packed.push_back(pack(from.keys[k], members[m]));
        }
      sort_packed(packed, scratch);
      index.ids.reserve(packed.size());
      for (const std::uint64_t x : packed) {
        if (index.keys.empty() || key_of(x) != index.keys.back()) {
          if (!index.keys.empty()) index.offsets.push_back(static_cast<std::uint32_t>(index.ids.size()));
          index.keys.push_back(key_of(x));
        }
        index.ids.push_back(id_of(x));
      }
      if (!index.keys.empty()) index.offsets.push_back(static_cast<std::uint32_t>(index.ids.size()));
    }
  };
  run_bodies(team, workers, work, [&] { next = word_count; });
  return cube;
}

// ---- HashCube: queries -----------------------------------------------------------------------

bool HashCube::computed(Mask m) const noexcept {
  return d_ > 0 && m != 0 && m <= full_mask(d_) && level(m) <= max_level_;
}

void HashCube::check_subspace(Mask m) const {
  if (computed(m)) return;
  const std::string value = std::to_string(m);
  if (d_ == 0)
    throw Error::argument("subspace", value, "none", "the HashCube is empty (default-constructed)");
  std::string valid = "1.." + std::to_string(full_mask(d_));
  if (max_level_ < d_) valid += " with at most " + std::to_string(max_level_) + " columns (partial skycube)";
  if (m == 0) throw Error::argument("subspace", value, valid, "the empty subspace has no skyline");
  if (m > full_mask(d_))
    throw Error::argument("subspace", value, valid,
                          "no such subspace over " + std::to_string(d_) + " columns");
  throw Error::argument("subspace", value, valid,
                        "subspace has " + std::to_string(level(m)) + " columns, above the cube's max_level " +
                            std::to_string(max_level_) + ", so it was not computed");
}

std::vector<PointId> HashCube::skyline(Mask m) const {
  check_subspace(m);
  const WordIndex& index = words_[bit_of(m) / 32];
  const Word bit = Word{1} << (bit_of(m) % 32);
  std::vector<PointId> out;
  std::size_t runs = 0;
  for (std::size_t k = 0; k < index.keys.size(); ++k) {
    if ((index.keys[k] & bit) != 0) continue;
    out.insert(out.end(), index.ids.begin() + index.offsets[k], index.ids.begin() + index.offsets[k + 1]);
    ++runs;
  }
  if (runs <= 1) return out;
  // Runs are ascending and disjoint. A large result is ordered through a bitmap over all ids
  // (linear), a small one by sorting.
  if (out.size() < n_ / 64) {
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::uint64_t> present((n_ + 63) / 64);
  for (const PointId id : out) present[id / 64] |= std::uint64_t{1} << (id % 64);
  std::size_t k = 0;
  for (std::size_t w = 0; w < present.size(); ++w)
    for (std::uint64_t bits = present[w]; bits != 0; bits &= bits - 1)
      out[k++] = static_cast<PointId>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  return out;
}

std::vector<Mask> HashCube::membership(PointId id) const {
  if (id >= n_)
    throw Error::argument(
        "id", std::to_string(id),
        n_ == 0 ? std::string("none: the cube has no points") : "0.." + std::to_string(n_ - 1));
  std::vector<Mask> out;
  for (std::size_t w = 0; w < words_.size(); ++w) {
    const WordIndex& index = words_[w];
    Word key = all_ones;  // absent from this word: dominated in all its subspaces
    for (std::size_t k = 0; k < index.keys.size(); ++k) {
      if (std::binary_search(index.ids.begin() + index.offsets[k], index.ids.begin() + index.offsets[k + 1],
                             id)) {
        key = index.keys[k];
        break;
      }
    }
    for (Word free = ~key; free != 0; free &= free - 1)
      out.push_back(static_cast<Mask>(w * 32 + static_cast<std::size_t>(std::countr_zero(free)) + 1));
  }
  return out;
}

std::size_t HashCube::stored_ids() const noexcept {
  std::size_t total = 0;
  for (const WordIndex& index : words_) total += index.ids.size();
  return total;
}

std::size_t HashCube::bytes() const noexcept {
  std::size_t total = sizeof(HashCube) + words_.size() * sizeof(WordIndex);
  for (const WordIndex& index : words_)
    total += index.keys.size() * sizeof(Word) + index.offsets.size() * sizeof(std::uint32_t) +
             index.ids.size() * sizeof(PointId);
  return total;
}

// ---- HashCube: merge -------------------------------------------------------------------------

HashCube HashCube::merge(const HashCube& a, const HashCube& b) {
  if (a.d_ != b.d_ || a.n_ != b.n_ || a.max_level_ != b.max_level_) {
    const auto shape = [](const HashCube& c) {
      return "d = " + std::to_string(c.d_) + ", n = " + std::to_string(c.n_) +
             ", max_level = " + std::to_string(c.max_level_);
    };
    throw Error(ErrorKind::bad_argument,
                "HashCube::merge: the cubes differ in shape (" + shape(a) + " vs " + shape(b) + ")");
  }
  if (a.d_ == 0) return a;

  HashCube out(a.d_, a.n_, a.max_level_);
  SeenIds seen(a.n_);
  for (std::size_t w = 0; w < out.words_.size(); ++w) {
    const WordIndex& x = a.words_[w];
    const WordIndex& y = b.words_[w];
    WordIndex& z = out.words_[w];
    for (const PointId id : x.ids) seen.mark(id);
    for (const PointId id : y.ids)
      if (seen.marked(id))
        throw Error(ErrorKind::bad_argument, "HashCube::merge: point id " + std::to_string(id) +
                                                 " is stored in both cubes (their ids must be disjoint)");

    merge_indexes(x, y, z);
  }
  return out;
}

// ---- HashCube: binary file -------------------------------------------------------------------

void HashCube::save(std::ostream& out) const {
  if (d_ == 0)
    throw Error(ErrorKind::bad_argument, "HashCube::save: the cube is empty (default-constructed)");
  out.write(magic.data(), magic.size());
  put_u32(out, format_version);
  put_u32(out, static_cast<std::uint32_t>(d_));
  put_u32(out, static_cast<std::uint32_t>(max_level_));
  put_u64(out, n_);
  for (const WordIndex& index : words_) {
    put_u64(out, index.keys.size());
    put_u32_array(out, index.keys);
    put_u32_array(out, index.offsets);
    put_u32_array(out, index.ids);
  }
  if (!out) throw Error(ErrorKind::io, "HashCube::save: writing the HashCube failed (disk full?)");
}

HashCube HashCube::load(std::istream& in, const std::string& origin) {
  Reader r(in, origin);
  std::array<char, 4> head{};
  in.read(head.data(), head.size());
  if (in.gcount() != static_cast<std::streamsize>(head.size()) || head != magic)
    r.fail("not a Sextant HashCube file (it does not start with the magic bytes 'SXHC')");
  const std::uint32_t version = r.u32("the header (version)");
  if (version != format_version)
    r.fail("unsupported HashCube format version " + std::to_string(version) + " (this build reads version " +
           std::to_string(format_version) + ")");
  const std::uint32_t d = r.u32("the header (d)");
  const std::uint32_t max_level = r.u32("the header (max_level)");
  const std::uint64_t n = r.u64("the header (n)");
  try {
    check_skycube_shape(d, max_level);
  } catch (const Error& e) {
    r.fail(std::string("corrupt HashCube header: ") + e.what());
  }
  if (n > max_points)
    r.fail("corrupt HashCube header: n = " + std::to_string(n) + " (valid: at most " +
           std::to_string(max_points) + " points)");

  HashCube cube(static_cast<int>(d), static_cast<std::size_t>(n), static_cast<int>(max_level));
  std::vector<PointId> sorted;       // the duplicate check of sparse words
  std::vector<std::uint64_t> marks;  // and of dense ones: sized by the data, not by the claimed n
  for (std::size_t w = 0; w < cube.words_.size(); ++w) {
    WordIndex& index = cube.words_[w];
    const std::string where = "word " + std::to_string(w);
    const auto corrupt = [&](const std::string& what) { r.fail("corrupt HashCube: " + where + ": " + what); };

    const std::uint64_t key_count = r.u64(where + " (key count)");
    if (key_count > n)
      corrupt(std::to_string(key_count) + " keys for " + std::to_string(n) +
              " points (each key needs an id)");
    r.u32_array(index.keys, key_count, where + " (keys)");
    const Word invalid = ~valid_bits(cube.d_, cube.max_level_, w);
    for (std::size_t k = 0; k < index.keys.size(); ++k) {
      if (k > 0 && index.keys[k] <= index.keys[k - 1]) corrupt("keys are not strictly ascending");
      if (index.keys[k] == all_ones) corrupt("stores an all-ones key (such words are never stored)");
      if ((index.keys[k] & invalid) != invalid)
        corrupt("key " + hex(index.keys[k]) +
                " clears bits of subspaces that do not exist or were not computed");
    }
    r.u32_array(index.offsets, key_count + 1, where + " (offsets)");
    if (index.offsets[0] != 0) corrupt("the first offset is " + std::to_string(index.offsets[0]) + ", not 0");
    for (std::size_t k = 1; k < index.offsets.size(); ++k)
      if (index.offsets[k] <= index.offsets[k - 1])
        corrupt("offsets are not strictly increasing (every key has at least one id)");
    if (index.offsets.back() > n)
      corrupt(std::to_string(index.offsets.back()) + " ids for " + std::to_string(n) + " points");
    r.u32_array(index.ids, index.offsets.back(), where + " (ids)");
    for (std::size_t k = 0; k < index.keys.size(); ++k) {
      for (std::uint32_t i = index.offsets[k]; i < index.offsets[k + 1]; ++i) {
        const PointId id = index.ids[i];
        if (id >= n)
          corrupt("point id " + std::to_string(id) + " is out of range for " + std::to_string(n) + " points");
        if (i > index.offsets[k] && id <= index.ids[i - 1])
          corrupt("ids of a key are not strictly ascending");
      }
    }
    // An id under two keys: a word with ids for at least 1/64 of the points marks them in a bitmap
    // over the points (so its size stays within the ids read), a sparser one sorts them.
    const auto twice = [&](PointId id) {
      corrupt("point id " + std::to_string(id) + " is stored under two keys");
    };
    if (index.ids.size() * 64 >= n) {
      if (marks.empty()) marks.assign((n + 63) / 64, 0);
      for (const PointId id : index.ids) {
        const std::uint64_t bit = std::uint64_t{1} << (id % 64);
        if ((std::exchange(marks[id / 64], marks[id / 64] | bit) & bit) != 0) twice(id);
      }
      for (const PointId id : index.ids) marks[id / 64] = 0;
    } else {
      sorted.assign(index.ids.begin(), index.ids.end());
      std::sort(sorted.begin(), sorted.end());
      if (const auto at = std::adjacent_find(sorted.begin(), sorted.end()); at != sorted.end()) twice(*at);
    }
  }
  if (in.peek() != std::char_traits<char>::eof()) {
    constexpr std::streamsize counted = std::streamsize{1} << 20;
    in.ignore(counted + 1);
    const std::streamsize extra = in.gcount();
    r.fail("trailing bytes: " + std::string(extra > counted ? "more than " : "") +
           std::to_string(std::min(extra, counted)) + (extra == 1 ? " byte" : " bytes") +
           " after the end of the HashCube (a corrupt or concatenated file?)");
  }
  return cube;
}

}  // namespace sextant::skycube
