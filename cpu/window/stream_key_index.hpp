// Key value -> dense id (0, 1, 2, ... in order of first appearance) for up to millions of
// arbitrary uint32 keys. Small key values (the common 0 .. K-1) go through a direct table, one
// load per lookup; others through an open-addressing hash table with linear probing kept at
// most half full, so that a lookup is almost always one probe.
#pragma once

#include <cstdint>
#include <vector>

#include "templates/window/stream_batch.hpp"

namespace sextant::window::detail {

class KeyIndex {
 public:
  static constexpr std::uint32_t absent = UINT32_MAX;

  [[gnu::always_inline]] std::uint32_t find(StreamKey key) const noexcept {
    if (key < direct_.size()) return direct_[key];
    return find_hashed(key);
  }
  // The direct table, for a hot loop that keeps it in registers (valid until the next insert).
  const std::uint32_t* direct() const noexcept { return direct_.data(); }
  std::uint64_t direct_size() const noexcept { return direct_.size(); }
  // `key` must be absent; it gets the next id, which is returned.
  std::uint32_t insert(StreamKey key);
  std::uint32_t size() const noexcept { return size_; }

  [[gnu::always_inline]] std::uint32_t find_hashed(StreamKey key) const noexcept {
    if (hashed_ == 0) return absent;
    const std::uint64_t mask = table_.size() - 1;
    for (std::uint64_t s = slot_of(key, bits_);; s = (s + 1) & mask) {
      const Entry e = table_[s];
      if (e.key == key || e.id == absent) return e.id;
    }
  }

 private:
  struct Entry {
    StreamKey key;
    std::uint32_t id;  // absent: empty slot
  };

  static std::uint64_t slot_of(StreamKey key, int bits) noexcept {
    return (static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits);
  }
  void insert_hashed(StreamKey key, std::uint32_t id);
  void grow_direct(std::uint64_t size);
  // An empty hash table of `slots` (a power of two, or 0) slots.
  void make_table(std::uint64_t slots);
  // `e` into its slot or the next free one after it; the table has room.
  void place(Entry e);

  std::vector<std::uint32_t> direct_;
  std::vector<Entry> table_;
  int bits_ = 0;
  std::uint32_t hashed_ = 0;
  std::uint32_t size_ = 0;
};

}  // namespace sextant::window::detail
