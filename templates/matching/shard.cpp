#include "templates/matching/shard.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace sextant::matching {

namespace {

constexpr std::uint32_t page_filters = policy::page_filters;

bool row_before(const RowMeta& r, NameId name, std::uint32_t cls) noexcept {
  return r.name < name || (r.name == name && r.cls < cls);
}

std::uint64_t block(PageId p, std::uint32_t local) noexcept {
  return static_cast<std::uint64_t>(p) * page_filters + local;
}

}  // namespace

Shard::Shard() {
  keys_.resize(16);
}

void Shard::clear() {
  const std::uint64_t epoch = changes_.epoch;  // epochs only grow: a device copy must see the reset
  const bool log = log_changes_;
  *this = Shard();
  changes_.epoch = epoch;
  log_changes_ = log;
  new_epoch();
}

ShardView Shard::view() const noexcept {
  ShardView v;
  v.keys = keys_.data();
  v.key_mask = keys_.size() - 1;
  v.key_count = key_count_;
  v.pages = pages_.data();
  v.filter_bloom = filter_bloom_.data();
  v.filter_size = filter_size_.data();
  v.filter_interface = filter_interface_.data();
  v.filter_slot = filter_slot_.data();
  v.filter_first = filter_first_.data();
  v.rows = rows_.data();
  v.entry_code = entry_code_.data();
  v.entry_filter = entry_filter_.data();
  v.entry_name = entry_name_.data();
  v.entry_order = entry_order_.data();
  v.entry_a = entry_a_.data();
  v.entry_b = entry_b_.data();
  v.strings = strings_.data();
  return v;
}

std::size_t Shard::bytes() const noexcept {
  return keys_.capacity() * sizeof(KeySlot) + pages_.capacity() * sizeof(PageMeta) +
         filter_bloom_.capacity() * (8 + 4 + 4 + 4 + 4) + rows_.capacity() * sizeof(RowMeta) +
         entry_code_.capacity() * (1 + 1 + 4 + 8 + 8 + 4) + strings_.capacity() +
         slots_.capacity() * sizeof(SlotInfo);
}

void Shard::log_changes(bool on) noexcept {
  log_changes_ = on;
  if (!on) trim_changes();
}

void Shard::trim_changes() noexcept {
  changes_.pages.clear();
  changes_.key_slots.clear();
}

void Shard::new_epoch() noexcept {
  ++changes_.epoch;
  trim_changes();
}

// ---- the key hash table ----------------------------------------------------------------------

std::uint64_t Shard::find_key_slot(std::uint64_t key) const noexcept {
  const std::uint64_t mask = keys_.size() - 1;
  for (std::uint64_t i = mix_key(key) & mask;; i = (i + 1) & mask) {
    if (keys_[i].key == key) return i;
    if (keys_[i].key == empty_key) return keys_.size();
  }
}

void Shard::grow_keys() {
  std::vector<KeySlot> old(keys_.size() * 2);
  old.swap(keys_);
  const std::uint64_t mask = keys_.size() - 1;
  for (const KeySlot& k : old) {
    if (k.key == empty_key) continue;
    std::uint64_t i = mix_key(k.key) & mask;
    while (keys_[i].key != empty_key) i = (i + 1) & mask;
    keys_[i] = k;
  }
  new_epoch();
}

std::uint64_t Shard::insert_key(std::uint64_t key) {
  std::uint64_t i = find_key_slot(key);
  if (i != keys_.size()) return i;
  if ((key_count_ + 1) * 2 > keys_.size()) grow_keys();
  const std::uint64_t mask = keys_.size() - 1;
  for (i = mix_key(key) & mask; keys_[i].key != empty_key;) i = (i + 1) & mask;
  keys_[i] = KeySlot{key, no_page, no_page};
  ++key_count_;
  touch_key(i);
  return i;
}

// Backward-shift deletion keeps every key reachable from its home slot without tombstones.
void Shard::erase_key_slot(std::uint64_t i) {
  const std::uint64_t mask = keys_.size() - 1;
  keys_[i] = KeySlot{};
  touch_key(i);
  for (std::uint64_t j = (i + 1) & mask; keys_[j].key != empty_key; j = (j + 1) & mask) {
    const std::uint64_t home = mix_key(keys_[j].key) & mask;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    keys_[i] = keys_[j];
    keys_[j] = KeySlot{};
    touch_key(i);
    touch_key(j);
    i = j;
  }
  --key_count_;
}

// ---- pages and pools -------------------------------------------------------------------------

PageId Shard::new_page(std::uint64_t key) {
  PageId p;
  if (!free_pages_.empty()) {
    p = free_pages_.back();
    free_pages_.pop_back();
  } else {
    p = static_cast<PageId>(pages_.size());
    if (p == no_page)
      throw Error(ErrorKind::resource, "matching tables: more than 2^32 - 1 pages in a shard");
    pages_.emplace_back();
    const std::size_t n = pages_.size() * page_filters;
    filter_bloom_.resize(n);
    filter_size_.resize(n);
    filter_interface_.resize(n);
    filter_slot_.resize(n);
    filter_first_.resize(n);
  }
  pages_[p] = PageMeta{};
  pages_[p].key = key;
  touch(p);
  return p;
}

void Shard::free_page(PageId p) {
  rows_garbage_ += pages_[p].rows_capacity;
  entries_garbage_ += pages_[p].entries_capacity;
  pages_[p] = PageMeta{};
  free_pages_.push_back(p);
  touch(p);
}

void Shard::ensure_rows(PageId p, std::uint32_t need) {
  if (pages_[p].rows_capacity >= need) return;
  const std::uint32_t old_cap = pages_[p].rows_capacity;
  const std::uint32_t cap = std::max({need, old_cap * 2, policy::initial_page_rows});
  const std::size_t begin = rows_.size();
  if (begin + cap > 0xFFFFFFFFull)
    throw Error(ErrorKind::resource, "matching tables: row pool beyond 2^32 rows");
  rows_.resize(begin + cap);
  std::copy_n(rows_.begin() + pages_[p].rows_begin, pages_[p].rows_count,
              rows_.begin() + static_cast<std::ptrdiff_t>(begin));
  rows_garbage_ += old_cap;
  pages_[p].rows_begin = static_cast<std::uint32_t>(begin);
  pages_[p].rows_capacity = cap;
  touch(p);
  if (rows_garbage_ > std::max<std::uint64_t>(policy::min_compaction_garbage, rows_.size() - rows_garbage_))
    compact_rows();
}

void Shard::ensure_entries(PageId p, std::uint32_t need) {
  if (pages_[p].entries_capacity >= need) return;
  const std::uint32_t old_cap = pages_[p].entries_capacity;
  const std::uint32_t cap = std::max({need, old_cap * 2, policy::initial_page_entries});
  const std::size_t begin = entry_code_.size();
  if (begin + cap > 0xFFFFFFFFull)
    throw Error(ErrorKind::resource, "matching tables: entry pool beyond 2^32 constraints in a shard");
  const auto from = static_cast<std::ptrdiff_t>(pages_[p].entries_begin);
  const auto n = static_cast<std::ptrdiff_t>(pages_[p].entries_count);
  const auto to = static_cast<std::ptrdiff_t>(begin);
  const auto move = [&](auto& column) {
    column.resize(begin + cap);
    std::copy(column.begin() + from, column.begin() + from + n, column.begin() + to);
  };
  move(entry_code_);
  move(entry_filter_);
  move(entry_name_);
  move(entry_a_);
  move(entry_b_);
  move(entry_order_);
  entries_garbage_ += old_cap;
  pages_[p].entries_begin = static_cast<std::uint32_t>(begin);
  pages_[p].entries_capacity = cap;
  touch(p);
  if (entries_garbage_ >
      std::max<std::uint64_t>(policy::min_compaction_garbage, entry_code_.size() - entries_garbage_))
    compact_entries();
}

void Shard::compact_rows() {
  std::vector<RowMeta> out;
  out.reserve(rows_.size() - rows_garbage_);
  for (PageMeta& pg : pages_) {
    if (pg.rows_capacity == 0) continue;
    const std::size_t begin = out.size();
    out.insert(out.end(), rows_.begin() + pg.rows_begin, rows_.begin() + pg.rows_begin + pg.rows_count);
    out.resize(begin + pg.rows_capacity);
    pg.rows_begin = static_cast<std::uint32_t>(begin);
  }
  rows_ = std::move(out);
  rows_garbage_ = 0;
  new_epoch();
}

void Shard::compact_entries() {
  std::size_t live = 0;
  for (const PageMeta& pg : pages_) live += pg.entries_capacity;
  const auto compact = [&](auto& column) {
    std::remove_reference_t<decltype(column)> out(live);
    std::size_t at = 0;
    for (const PageMeta& pg : pages_) {
      if (pg.entries_capacity == 0) continue;
      std::copy_n(column.begin() + pg.entries_begin, pg.entries_count,
                  out.begin() + static_cast<std::ptrdiff_t>(at));
      at += pg.entries_capacity;
    }
    column = std::move(out);
  };
  compact(entry_code_);
  compact(entry_filter_);
  compact(entry_name_);
  compact(entry_a_);
  compact(entry_b_);
  compact(entry_order_);
  std::size_t at = 0;
  for (PageMeta& pg : pages_) {
    if (pg.entries_capacity == 0) continue;
    pg.entries_begin = static_cast<std::uint32_t>(at);
    at += pg.entries_capacity;
  }
  entries_garbage_ = 0;
  new_epoch();
}

void Shard::compact_strings() {
  std::string out;
  out.reserve(strings_.size() - strings_garbage_);
  for (const PageMeta& pg : pages_) {
    for (std::uint32_t r = 0; r < pg.rows_count; ++r) {
      const RowMeta& row = rows_[pg.rows_begin + r];
      if (static_cast<TypeClass>(row.cls) != TypeClass::string) continue;
      for (std::uint32_t i = pg.entries_begin + row.begin; i < pg.entries_begin + row.begin + row.count;
           ++i) {
        const std::uint64_t offset = out.size();
        out.append(strings_, entry_a_[i], entry_b_[i]);
        entry_a_[i] = offset;
      }
    }
  }
  strings_ = std::move(out);
  strings_garbage_ = 0;
  new_epoch();
}

// ---- filters ---------------------------------------------------------------------------------

std::uint64_t Shard::bloom_of(std::span<const ShardConstraint> constraints) const noexcept {
  std::uint64_t bloom = 0;
  for (const ShardConstraint& c : constraints) bloom |= name_bit(c.name);
  return bloom;
}

void Shard::insert_entry(PageId p, const ShardConstraint& c, std::uint64_t a, std::uint64_t b,
                         std::uint32_t local) {
  const auto cls = static_cast<std::uint32_t>(c.cls);
  std::uint32_t r;
  {
    const PageMeta& pg = pages_[p];
    const RowMeta* rows = rows_.data() + pg.rows_begin;
    r = static_cast<std::uint32_t>(
        std::partition_point(rows, rows + pg.rows_count,
                             [&](const RowMeta& row) { return row_before(row, c.name, cls); }) -
        rows);
    if (r == pg.rows_count || rows[r].name != c.name || rows[r].cls != cls) {
      ensure_rows(p, pg.rows_count + 1);
      RowMeta* rw = rows_.data() + pages_[p].rows_begin;
      const std::uint32_t count = pages_[p].rows_count;
      const std::uint32_t begin = r < count ? rw[r].begin : pages_[p].entries_count;
      std::copy_backward(rw + r, rw + count, rw + count + 1);
      rw[r] = RowMeta{c.name, cls, begin, 0};
      ++pages_[p].rows_count;
    }
  }
  ensure_entries(p, pages_[p].entries_count + 1);
  PageMeta& pg = pages_[p];
  RowMeta* rows = rows_.data() + pg.rows_begin;
  const std::size_t pos = pg.entries_begin + rows[r].begin + rows[r].count;
  const std::size_t end = pg.entries_begin + pg.entries_count;
  const auto shift = [&](auto& column) {
    std::copy_backward(column.begin() + static_cast<std::ptrdiff_t>(pos),
                       column.begin() + static_cast<std::ptrdiff_t>(end),
                       column.begin() + static_cast<std::ptrdiff_t>(end) + 1);
  };
  shift(entry_code_);
  shift(entry_filter_);
  shift(entry_name_);
  shift(entry_a_);
  shift(entry_b_);
  entry_code_[pos] = make_entry_code(c.op, c.cls);
  entry_filter_[pos] = static_cast<std::uint8_t>(local);
  entry_name_[pos] = c.name;
  entry_a_[pos] = a;
  entry_b_[pos] = b;
  ++rows[r].count;
  for (std::uint32_t k = r + 1; k < pg.rows_count; ++k) ++rows[k].begin;
  ++pg.entries_count;
}

std::uint32_t Shard::append_filter(PageId p, std::uint64_t bloom, std::uint32_t size, std::uint32_t interface,
                                   FilterSlot slot, std::span<const ShardConstraint> constraints,
                                   std::span<const RawValue> values) {
  const std::uint32_t local = pages_[p].count;
  const std::uint64_t at = block(p, local);
  filter_bloom_[at] = bloom;
  filter_size_[at] = size;
  filter_interface_[at] = interface;
  filter_slot_[at] = slot;
  pages_[p].interfaces |= std::uint64_t{1} << (interface % 64);
  ++pages_[p].count;
  for (std::size_t i = 0; i < constraints.size(); ++i)
    insert_entry(p, constraints[i], values[i].a, values[i].b, local);
  index_page(p);
  touch(p);
  return local;
}

FilterSlot Shard::insert(std::uint64_t key, std::uint32_t interface,
                         std::span<const ShardConstraint> constraints) {
  scratch_values_.resize(constraints.size());
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    const ShardConstraint& c = constraints[i];
    if (c.cls == TypeClass::string) {
      scratch_values_[i] = {strings_.size(), c.text.size()};
      strings_ += c.text;
    } else {
      scratch_values_[i] = c.value;
    }
  }
  FilterSlot slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<FilterSlot>(slots_.size());
    slots_.emplace_back();
  }
  const std::uint64_t ki = insert_key(key);
  PageId p = keys_[ki].last;
  if (p == no_page || pages_[p].count == page_filters) {
    const PageId q = new_page(key);
    if (p == no_page) {
      keys_[ki].first = q;
    } else {
      pages_[p].next = q;
      touch(p);
    }
    keys_[ki].last = q;
    touch_key(ki);
    p = q;
  }
  const std::uint32_t local =
      append_filter(p, bloom_of(constraints), static_cast<std::uint32_t>(constraints.size()), interface, slot,
                    constraints, scratch_values_);
  slots_[slot] = {p, local};
  ++filter_count_;
  constraint_count_ += constraints.size();
  return slot;
}

void Shard::remove_local(PageId p, std::uint32_t local, bool free_strings) {
  PageMeta& pg = pages_[p];
  RowMeta* rows = rows_.data() + pg.rows_begin;
  const std::uint32_t base = pg.entries_begin;
  const std::uint32_t last = pg.count - 1;
  std::uint32_t write = 0, kept_rows = 0;
  for (std::uint32_t r = 0; r < pg.rows_count; ++r) {
    const RowMeta row = rows[r];
    const std::uint32_t row_begin = write;
    for (std::uint32_t i = base + row.begin; i < base + row.begin + row.count; ++i) {
      std::uint32_t f = entry_filter_[i];
      if (f == local) {
        if (free_strings && static_cast<TypeClass>(row.cls) == TypeClass::string)
          strings_garbage_ += entry_b_[i];
        continue;
      }
      if (f == last) f = local;
      entry_code_[base + write] = entry_code_[i];
      entry_filter_[base + write] = static_cast<std::uint8_t>(f);
      entry_name_[base + write] = entry_name_[i];
      entry_a_[base + write] = entry_a_[i];
      entry_b_[base + write] = entry_b_[i];
      ++write;
    }
    if (write > row_begin) rows[kept_rows++] = RowMeta{row.name, row.cls, row_begin, write - row_begin};
  }
  pg.rows_count = kept_rows;
  pg.entries_count = write;
  if (local != last) {
    const std::uint64_t to = block(p, local), from = block(p, last);
    filter_bloom_[to] = filter_bloom_[from];
    filter_size_[to] = filter_size_[from];
    filter_interface_[to] = filter_interface_[from];
    filter_slot_[to] = filter_slot_[from];
    slots_[filter_slot_[to]].local = local;
  }
  --pg.count;
  pg.interfaces = 0;
  for (std::uint32_t f = 0; f < pg.count; ++f)
    pg.interfaces |= std::uint64_t{1} << (filter_interface_[block(p, f)] % 64);
  index_page(p);
  touch(p);
}

void Shard::index_page(PageId p) {
  const PageMeta& pg = pages_[p];
  const std::uint64_t at = block(p, 0);
  std::uint32_t next[page_filters];
  std::uint32_t first = 0;
  for (std::uint32_t f = 0; f < pg.count; ++f) {
    filter_first_[at + f] = first;
    next[f] = first;
    first += filter_size_[at + f];
  }
  for (std::uint32_t i = 0; i < pg.entries_count; ++i)
    entry_order_[pg.entries_begin + next[entry_filter_[pg.entries_begin + i]]++] = i;
}

std::vector<ShardConstraint> Shard::constraints_of(FilterSlot slot) const {
  std::vector<ShardConstraint> out;
  const SlotInfo s = slots_.at(slot);
  if (s.page == no_page) return out;
  const PageMeta& pg = pages_[s.page];
  for (std::uint32_t r = 0; r < pg.rows_count; ++r) {
    const RowMeta& row = rows_[pg.rows_begin + r];
    for (std::uint32_t i = pg.entries_begin + row.begin; i < pg.entries_begin + row.begin + row.count; ++i) {
      if (entry_filter_[i] != s.local) continue;
      ShardConstraint c;
      c.name = row.name;
      c.cls = static_cast<TypeClass>(row.cls);
      c.op = entry_op(entry_code_[i]);
      c.value = {entry_a_[i], entry_b_[i]};
      if (c.cls == TypeClass::string) c.text = std::string_view(strings_).substr(entry_a_[i], entry_b_[i]);
      out.push_back(c);
    }
  }
  return out;
}

void Shard::erase(FilterSlot slot) {
  const SlotInfo s = slots_.at(slot);
  if (s.page == no_page) throw Error::internal("matching shard: erasing a free filter slot");
  const PageId p = s.page;
  const std::uint64_t ki = find_key_slot(pages_[p].key);
  if (ki == keys_.size()) throw Error::internal("matching shard: a page's key is missing");
  const PageId q = keys_[ki].last;
  const std::uint32_t size = filter_size_[block(p, s.local)];
  if (p != q) {
    // The key's last filter fills the hole, so that only the last page is ever partly full.
    const std::uint32_t j = pages_[q].count - 1;
    const std::uint64_t from = block(q, j);
    const FilterSlot moved = filter_slot_[from];
    const std::uint64_t bloom = filter_bloom_[from];
    const std::uint32_t moved_size = filter_size_[from];
    const std::uint32_t interface = filter_interface_[from];
    const std::vector<ShardConstraint> constraints = constraints_of(moved);
    std::vector<RawValue> values;
    values.reserve(constraints.size());
    for (const ShardConstraint& c : constraints) values.push_back(c.value);
    remove_local(p, s.local, true);
    const std::uint32_t local = append_filter(p, bloom, moved_size, interface, moved, constraints, values);
    remove_local(q, j, false);
    slots_[moved] = {p, local};
  } else {
    remove_local(p, s.local, true);
  }
  if (pages_[q].count == 0) {
    if (keys_[ki].first == q) {
      erase_key_slot(ki);
    } else {
      PageId prev = keys_[ki].first;
      while (pages_[prev].next != q) prev = pages_[prev].next;
      pages_[prev].next = no_page;
      touch(prev);
      keys_[ki].last = prev;
      touch_key(ki);
    }
    free_page(q);
  }
  slots_[slot] = SlotInfo{};
  free_slots_.push_back(slot);
  --filter_count_;
  constraint_count_ -= size;
  if (strings_garbage_ >
      std::max<std::uint64_t>(policy::min_compaction_garbage, strings_.size() - strings_garbage_))
    compact_strings();
}

void Shard::check_invariants() const {
  const auto fail = [](const std::string& what) {
    throw Error::internal("matching shard invariant: " + what);
  };
  std::size_t filters = 0, constraints = 0, keys = 0;
  std::vector<char> seen(pages_.size(), 0);
  for (std::uint64_t i = 0; i < keys_.size(); ++i) {
    const KeySlot& k = keys_[i];
    if (k.key == empty_key) continue;
    ++keys;
    if (find_key_slot(k.key) != i) fail("a key not reachable from its home slot");
    if (k.first == no_page) fail("a key without pages");
    for (PageId p = k.first; p != no_page; p = pages_[p].next) {
      if (seen[p]) fail("a page in two chains");
      seen[p] = 1;
      const PageMeta& pg = pages_[p];
      if (pg.key != k.key) fail("a page under the wrong key");
      if (pg.count == 0) fail("an empty page in a chain");
      if (pg.next != no_page && pg.count != page_filters) fail("a partly full page before the last");
      if (pg.next == no_page && p != k.last) fail("the chain's end is not the key's last page");
      std::uint32_t expect = 0;
      std::vector<std::uint32_t> counts(page_filters, 0);
      for (std::uint32_t r = 0; r < pg.rows_count; ++r) {
        const RowMeta& row = rows_[pg.rows_begin + r];
        if (r > 0 && !row_before(rows_[pg.rows_begin + r - 1], row.name, row.cls)) fail("rows out of order");
        if (row.begin != expect || row.count == 0) fail("row extents");
        expect += row.count;
        for (std::uint32_t e = pg.entries_begin + row.begin; e < pg.entries_begin + row.begin + row.count;
             ++e) {
          if (entry_filter_[e] >= pg.count) fail("an entry of a missing filter");
          ++counts[entry_filter_[e]];
        }
      }
      if (expect != pg.entries_count || pg.entries_count > pg.entries_capacity ||
          pg.rows_count > pg.rows_capacity)
        fail("page extents");
      std::uint64_t interfaces = 0;
      for (std::uint32_t f = 0; f < pg.count; ++f)
        interfaces |= std::uint64_t{1} << (filter_interface_[block(p, f)] % 64);
      if (interfaces != pg.interfaces) fail("a page's interface bits are stale");
      for (std::uint32_t f = 0; f < pg.count; ++f) {
        const std::uint64_t b = block(p, f);
        if (counts[f] != filter_size_[b]) fail("a filter's size differs from its entries");
        for (std::uint32_t j = 0; j < filter_size_[b]; ++j) {
          const std::uint32_t entry = entry_order_[pg.entries_begin + filter_first_[b] + j];
          if (entry >= pg.entries_count || entry_filter_[pg.entries_begin + entry] != f)
            fail("the filter-major index is stale");
        }
        const SlotInfo& s = slots_.at(filter_slot_[b]);
        if (s.page != p || s.local != f) fail("a slot points elsewhere");
        ++filters;
        constraints += counts[f];
      }
    }
  }
  if (keys != key_count_) fail("key count");
  if (filters != filter_count_) fail("filter count");
  if (constraints != constraint_count_) fail("constraint count");
}

}  // namespace sextant::matching
