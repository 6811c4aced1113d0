// The matching tables as every hook reads them: plain structs and pointers (host memory on the
// CPU, device memory on a GPU), and the key arithmetic both sides share. No CUDA header here.
//
// The structure (paper 002, section 3.1, with the filter selection made exact and enumerable):
//
//   filter selection   a filter is filed under a *key*: its only name, or two of its names (the two
//                      rarest when it was added). An event can only match filters whose names it
//                      all holds, so it probes the keys of its single names and of every pair of
//                      its names: a hash table maps a key to its chain of pages.
//   page               up to policy::page_filters (64) filters of one key: per filter its 64-bit
//                      name Bloom signature, size (constraint count) and interface; and the
//                      paper's constraint tables for those filters: one row per (name, type
//                      class), each row a structure of arrays (operator, value, filter).
//   counting           per (event, page): the Bloom scan keeps the filters whose signature the
//                      event's covers (survivors; it only prunes); the survivors' constraints are
//                      counted, each (event, constraint) at most once, and a survivor whose count
//                      reaches its size matches. Few survivors (the common case) are counted
//                      filter by filter through the page's filter-major index into its rows (and
//                      stop at the first unsatisfied constraint); many are counted row by row.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"
#include "templates/matching/matching_policy.hpp"
#include "templates/matching/value.hpp"

namespace sextant::matching {

using NameId = std::uint32_t;
using PageId = std::uint32_t;
using FilterSlot = std::uint32_t;

inline constexpr NameId no_name = 0xFFFFFFFFu;  // names are 0 .. 2^32 - 3
inline constexpr PageId no_page = 0xFFFFFFFFu;
inline constexpr std::uint64_t empty_key = ~std::uint64_t{0};

SEXTANT_HD constexpr std::uint64_t single_key(NameId a) noexcept {
  return (static_cast<std::uint64_t>(a) << 32) | 0xFFFFFFFFull;
}
// a < b.
SEXTANT_HD constexpr std::uint64_t pair_key(NameId a, NameId b) noexcept {
  return (static_cast<std::uint64_t>(a) << 32) | b;
}
SEXTANT_HD constexpr NameId key_first(std::uint64_t key) noexcept {
  return static_cast<NameId>(key >> 32);
}
SEXTANT_HD constexpr NameId key_second(std::uint64_t key) noexcept {  // no_name for a single key
  return static_cast<NameId>(key & 0xFFFFFFFFull);
}

SEXTANT_HD constexpr std::uint64_t mix_key(std::uint64_t z) noexcept {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A name's bits in the 64-bit Bloom signatures: policy::bloom_bits_per_name bits (6-bit fields of
// the name's hash; two fields may coincide).
SEXTANT_HD constexpr std::uint64_t name_bit(NameId n) noexcept {
  const std::uint64_t h = mix_key(n);
  std::uint64_t bits = 0;
  for (std::uint32_t k = 0; k < policy::bloom_bits_per_name; ++k)
    bits |= std::uint64_t{1} << ((h >> (6 * k)) & 63);
  return bits;
}

// A slot of the key hash table (open addressing, linear probing; key == empty_key: free).
struct KeySlot {
  std::uint64_t key = empty_key;
  PageId first = no_page;  // the key's chain of pages
  PageId last = no_page;
};

struct PageMeta {
  std::uint64_t key = empty_key;
  // Bit d % 64 for the dense interface d of every filter of the page: with at most 64 interfaces,
  // a page whose interfaces an event already matched is skipped (unless filter ids are wanted).
  std::uint64_t interfaces = 0;
  PageId next = no_page;                                            // the next page of the key's chain
  std::uint32_t count = 0;                                          // filters held: locals 0 .. count - 1
  std::uint32_t rows_begin = 0, rows_count = 0, rows_capacity = 0;  // in the row pool
  std::uint32_t entries_begin = 0, entries_count = 0, entries_capacity = 0;  // in the entry pool
};

// A constraint row of a page: the page's constraints on `name` of one type class, entries
// [begin, begin + count) of the page's entry region. Rows are sorted by (name, class).
struct RowMeta {
  NameId name = 0;
  std::uint32_t cls = 0;  // TypeClass
  std::uint32_t begin = 0;
  std::uint32_t count = 0;
};

// An entry's code: its operator (low 4 bits) and its row's type class (high bits).
SEXTANT_HD constexpr std::uint8_t make_entry_code(Op op, TypeClass cls) noexcept {
  return static_cast<std::uint8_t>(static_cast<unsigned>(op) | (static_cast<unsigned>(cls) << 4));
}
SEXTANT_HD constexpr Op entry_op(std::uint8_t code) noexcept {
  return static_cast<Op>(code & 15u);
}
SEXTANT_HD constexpr TypeClass entry_class(std::uint8_t code) noexcept {
  return static_cast<TypeClass>(code >> 4);
}

// One shard's tables, read-only while a batch runs.
struct ShardView {
  const KeySlot* keys = nullptr;
  std::uint64_t key_mask = 0;  // capacity - 1 (a power of two)
  std::uint64_t key_count = 0;
  const PageMeta* pages = nullptr;
  // Per page slot p * page_filters + local:
  const std::uint64_t* filter_bloom = nullptr;
  const std::uint32_t* filter_size = nullptr;
  const std::uint32_t* filter_interface = nullptr;  // dense interface index
  const FilterSlot* filter_slot = nullptr;          // the filter's slot in its shard
  const std::uint32_t* filter_first = nullptr;      // its first position in the page's entry_order
  const RowMeta* rows = nullptr;
  // The entry pool, a structure of arrays (a page's region: entries_begin + 0 .. entries_count):
  const std::uint8_t* entry_code = nullptr;    // make_entry_code(op, class)
  const std::uint8_t* entry_filter = nullptr;  // the filter's local index in the page
  const NameId* entry_name = nullptr;          // the row's name
  const std::uint64_t* entry_a = nullptr;      // RawValue.a
  const std::uint64_t* entry_b = nullptr;      // RawValue.b
  // The page's entries in filter order (relative indices; filter f's are positions
  // filter_first[f] .. + filter_size[f]).
  const std::uint32_t* entry_order = nullptr;
  const char* strings = nullptr;  // string constraint values
};

// The first page of `key`'s chain, or no_page.
SEXTANT_HD inline PageId find_key(const ShardView& t, std::uint64_t key) noexcept {
  if (t.key_count == 0) return no_page;
  std::uint64_t i = mix_key(key) & t.key_mask;
  while (true) {
    const std::uint64_t k = t.keys[i].key;
    if (k == key) return t.keys[i].first;
    if (k == empty_key) return no_page;
    i = (i + 1) & t.key_mask;
  }
}

// A run of an event's attributes of one name and type class (prepared_events.hpp).
struct EventGroup {
  NameId name = 0;
  std::uint32_t cls = 0;    // TypeClass: numeric, boolean or string
  std::uint32_t begin = 0;  // attributes [begin, begin + count) of the batch
  std::uint32_t count = 0;
};

// Prepared events, read-only while a batch runs (host or device pointers).
struct EventsView {
  std::uint32_t size = 0;
  const std::uint32_t* name_begin = nullptr;   // size + 1: event i's distinct names
  const NameId* names = nullptr;               // sorted per event; only names some filter uses
  const std::uint32_t* group_begin = nullptr;  // size + 1: event i's groups
  const EventGroup* groups = nullptr;          // sorted by (name, class) per event
  const std::uint64_t* value_a = nullptr;      // attribute values (numbers: canonical NumKey)
  const std::uint64_t* value_b = nullptr;
  const char* strings = nullptr;         // string attribute values
  const std::uint64_t* bloom = nullptr;  // per event: the OR of its names' bits
};

}  // namespace sextant::matching
