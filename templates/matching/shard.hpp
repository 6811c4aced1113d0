// One shard of the matching tables (table_view.hpp describes the structure): the key hash table,
// the pages with their filter blocks, row directories and constraint entries, the string values,
// and the filter slots. Changes are amortised O(1) per constraint and never rebuild:
//
//   insert   files the filter under its key, in the key's last page (a new page when full); its
//            constraints go into the page's rows (a page region doubles when full, relocating).
//   erase    removes the filter's entries from its page; the key's last filter moves into the
//            hole so that only a key's last page is ever partly full; an empty page is freed.
//   pools    relocated regions and removed strings are garbage; a pool is compacted when its
//            garbage exceeds its live part.
//
// Every change records what it touched (ShardChanges) so that a device copy applies the delta.
// Not thread-safe: MatchTables' owner serialises changes and batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "templates/matching/matching_policy.hpp"
#include "templates/matching/table_view.hpp"
#include "templates/matching/value.hpp"

namespace sextant::matching {

// A constraint as the shard files it: resolved name, class, operator, value (numbers canonical;
// strings as bytes, copied into the shard).
struct ShardConstraint {
  NameId name = 0;
  TypeClass cls = TypeClass::numeric;
  Op op = Op::eq;
  RawValue value;  // strings: ignored, `text` holds the bytes
  std::string_view text;
};

// What changed since a device copy last synchronised: a copy at an older epoch reloads
// everything; otherwise it uploads the pages and key slots logged since its position.
struct ShardChanges {
  std::uint64_t epoch = 0;               // bumped by every pool compaction, growth of the key table or reset
  std::vector<PageId> pages;             // pages whose meta, filter block, rows or entries changed
  std::vector<std::uint64_t> key_slots;  // key table slots that changed
};

class Shard {
 public:
  Shard();

  // Files a filter (constraints non-empty, names resolved, key chosen by the caller) of dense
  // interface `interface`; returns its slot.
  FilterSlot insert(std::uint64_t key, std::uint32_t interface, std::span<const ShardConstraint> constraints);
  // Removes the filter in `slot`.
  void erase(FilterSlot slot);
  void clear();

  ShardView view() const noexcept;
  std::size_t filters() const noexcept { return filter_count_; }
  std::size_t constraints() const noexcept { return constraint_count_; }
  std::size_t pages_in_use() const noexcept { return pages_.size() - free_pages_.size(); }
  std::size_t keys() const noexcept { return key_count_; }
  // Bytes the tables hold (capacity), for reports.
  std::size_t bytes() const noexcept;
  // The pools' sizes (what a device copy allocates).
  std::size_t page_capacity() const noexcept { return pages_.size(); }
  std::size_t row_pool() const noexcept { return rows_.size(); }
  std::size_t entry_pool() const noexcept { return entry_code_.size(); }
  std::size_t string_bytes() const noexcept { return strings_.size(); }
  std::size_t key_capacity() const noexcept { return keys_.size(); }

  // The delta log (ShardChanges): changes() since the log was last cleared; trim_changes() clears
  // it once every device copy has applied it.
  const ShardChanges& changes() const noexcept { return changes_; }
  void trim_changes() noexcept;
  // Whether changes are logged at all (only while some device holds a copy).
  void log_changes(bool on) noexcept;

  // Checks every invariant (rows sorted, counts, chains, slots); throws Error::internal. Tests.
  void check_invariants() const;

  // The constraints of the filter in `slot` (name, class, op, value; strings point into the shard).
  std::vector<ShardConstraint> constraints_of(FilterSlot slot) const;

 private:
  struct SlotInfo {
    PageId page = no_page;
    std::uint32_t local = 0;
  };

  std::uint64_t find_key_slot(std::uint64_t key) const noexcept;  // keys_.size() when absent
  std::uint64_t insert_key(std::uint64_t key);                    // the key's slot index
  void erase_key_slot(std::uint64_t i);
  void grow_keys();
  PageId new_page(std::uint64_t key);
  void free_page(PageId p);
  void ensure_rows(PageId p, std::uint32_t need);
  void ensure_entries(PageId p, std::uint32_t need);
  void insert_entry(PageId p, const ShardConstraint& c, std::uint64_t a, std::uint64_t b,
                    std::uint32_t local);
  // Appends a filter with these entries (strings already in the arena) as the page's last local.
  std::uint32_t append_filter(PageId p, std::uint64_t bloom, std::uint32_t size, std::uint32_t interface,
                              FilterSlot slot, std::span<const ShardConstraint> constraints,
                              std::span<const RawValue> values);
  // Removes local `local`'s entries and moves the page's last filter into its place.
  void remove_local(PageId p, std::uint32_t local, bool free_strings);
  // Rebuilds the page's filter-major index (entry_order_, filter_first_).
  void index_page(PageId p);
  void compact_rows();
  void compact_entries();
  void compact_strings();
  void touch(PageId p) {
    if (log_changes_) changes_.pages.push_back(p);
  }
  void touch_key(std::uint64_t i) {
    if (log_changes_) changes_.key_slots.push_back(i);
  }
  void new_epoch() noexcept;
  std::uint64_t bloom_of(std::span<const ShardConstraint> constraints) const noexcept;

  // Key hash table.
  std::vector<KeySlot> keys_;
  std::uint64_t key_count_ = 0;
  // Pages and their filter blocks (page * page_filters + local).
  std::vector<PageMeta> pages_;
  std::vector<PageId> free_pages_;
  std::vector<std::uint64_t> filter_bloom_;
  std::vector<std::uint32_t> filter_size_;
  std::vector<std::uint32_t> filter_interface_;
  std::vector<FilterSlot> filter_slot_;
  std::vector<std::uint32_t> filter_first_;
  // Row pool and entry pool.
  std::vector<RowMeta> rows_;
  std::uint64_t rows_garbage_ = 0;
  std::vector<std::uint8_t> entry_code_;
  std::vector<std::uint8_t> entry_filter_;
  std::vector<NameId> entry_name_;
  std::vector<std::uint64_t> entry_a_;
  std::vector<std::uint64_t> entry_b_;
  std::vector<std::uint32_t> entry_order_;
  std::uint64_t entries_garbage_ = 0;
  std::string strings_;
  std::uint64_t strings_garbage_ = 0;
  // Filter slots.
  std::vector<SlotInfo> slots_;
  std::vector<FilterSlot> free_slots_;
  std::size_t filter_count_ = 0;
  std::size_t constraint_count_ = 0;
  ShardChanges changes_;
  bool log_changes_ = false;
  std::vector<RawValue> scratch_values_;
};

}  // namespace sextant::matching
