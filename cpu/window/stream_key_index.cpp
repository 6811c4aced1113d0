#include "cpu/window/stream_key_index.hpp"

#include <algorithm>
#include <bit>

namespace sextant::window::detail {

namespace {
// A direct table is used for keys below 2^22 (16 MiB) while it stays at most ~16 slots per key.
constexpr std::uint64_t direct_limit = std::uint64_t{1} << 22;
}  // namespace

std::uint32_t KeyIndex::insert(StreamKey key) {
  const std::uint32_t id = size_++;
  const std::uint64_t want = std::bit_ceil(static_cast<std::uint64_t>(key) + 1);
  if (key >= direct_.size() && want <= direct_limit && want <= std::max<std::uint64_t>(4096, 16ull * size_))
    grow_direct(want);
  if (key < direct_.size())
    direct_[key] = id;
  else
    insert_hashed(key, id);
  return id;
}

void KeyIndex::grow_direct(std::uint64_t size) {
  direct_.resize(size, absent);
  // Keys now below the direct table leave the hash table; the rest go into a table sized for them
  // up front. (Refilled into a table that grows from empty, they would arrive in slot order, that
  // is hash order, and pile up into one cluster: quadratic probing.)
  std::vector<Entry> old;
  old.swap(table_);
  std::uint64_t rest = 0;
  for (const Entry& e : old)
    if (e.id != absent) {
      if (e.key < size)
        direct_[e.key] = e.id;
      else
        ++rest;
    }
  make_table(rest > 0 ? std::max<std::uint64_t>(64, std::bit_ceil(2 * rest)) : 0);
  for (const Entry& e : old)
    if (e.id != absent && e.key >= size) place(e);
}

void KeyIndex::make_table(std::uint64_t slots) {
  table_.assign(slots, Entry{0, absent});
  bits_ = slots > 0 ? std::countr_zero(slots) : 0;
  hashed_ = 0;
}

void KeyIndex::place(Entry e) {
  const std::uint64_t mask = table_.size() - 1;
  std::uint64_t s = slot_of(e.key, bits_);
  while (table_[s].id != absent) s = (s + 1) & mask;
  table_[s] = e;
  ++hashed_;
}

void KeyIndex::insert_hashed(StreamKey key, std::uint32_t id) {
  if (2 * (static_cast<std::uint64_t>(hashed_) + 1) > table_.size()) {
    std::vector<Entry> old;
    old.swap(table_);
    make_table(std::max<std::uint64_t>(64, old.size() * 2));
    for (const Entry& e : old)
      if (e.id != absent) place(e);
  }
  place({key, id});
}

}  // namespace sextant::window::detail
