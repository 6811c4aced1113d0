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
  // Keys now below the direct table leave the hash table: rebuild it from the rest.
  std::vector<Entry> old;
  old.swap(table_);
  hashed_ = 0;
  bits_ = 0;
  for (const Entry& e : old)
    if (e.id != absent) {
      if (e.key < direct_.size())
        direct_[e.key] = e.id;
      else
        insert_hashed(e.key, e.id);
    }
}

void KeyIndex::insert_hashed(StreamKey key, std::uint32_t id) {
  if (2 * (static_cast<std::uint64_t>(hashed_) + 1) > table_.size()) {
    std::vector<Entry> old(std::max<std::size_t>(64, table_.size() * 2), Entry{0, absent});
    old.swap(table_);
    bits_ = std::countr_zero(table_.size());
    hashed_ = 0;
    for (const Entry& e : old)
      if (e.id != absent) insert_hashed(e.key, e.id);
  }
  const std::uint64_t mask = table_.size() - 1;
  std::uint64_t s = slot_of(key, bits_);
  while (table_[s].id != absent) s = (s + 1) & mask;
  table_[s] = {key, id};
  ++hashed_;
}

}  // namespace sextant::window::detail
