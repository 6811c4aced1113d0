// Counting on one page for one event, after the Bloom scan (table_view.hpp): the rows of the
// event's names are evaluated for the surviving filters only, each (event, constraint) counted at
// most once whatever the number of attributes of that name, and the filters whose count reaches
// their size are complete. Host and device code (SEXTANT_HD), no allocation.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "templates/matching/matching_policy.hpp"
#include "templates/matching/table_view.hpp"
#include "templates/matching/value.hpp"

namespace sextant::matching {

// Whether some attribute of `g` satisfies the constraint (op, a, b) of the group's class.
SEXTANT_HD inline bool any_satisfies(Op op, std::uint64_t a, std::uint64_t b, const EventGroup& g,
                                     const EventsView& ev, const char* table_strings) noexcept {
  const std::uint32_t end = g.begin + g.count;
  switch (static_cast<TypeClass>(g.cls)) {
    case TypeClass::numeric: {
      const NumKey c = num_key_of({a, b});
      for (std::uint32_t i = g.begin; i < end; ++i)
        if (satisfies_order(op, compare(num_key_of({ev.value_a[i], ev.value_b[i]}), c))) return true;
      return false;
    }
    case TypeClass::boolean:
      for (std::uint32_t i = g.begin; i < end; ++i)
        if ((ev.value_a[i] == a) == (op == Op::eq)) return true;
      return false;
    case TypeClass::string:
      for (std::uint32_t i = g.begin; i < end; ++i)
        if (satisfies_string(op, ev.strings + ev.value_a[i], ev.value_b[i], table_strings + a, b))
          return true;
      return false;
    case TypeClass::any:
      return g.count > 0;
  }
  return false;
}

// The first row of the page with name >= n (rows sorted by (name, class)).
SEXTANT_HD inline std::uint32_t lower_row(const RowMeta* rows, std::uint32_t count, NameId n) noexcept {
  std::uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (rows[mid].name < n)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The event's group of (n, cls), or nullptr (groups sorted by (name, class)).
SEXTANT_HD inline const EventGroup* find_group(const EventsView& ev, std::uint32_t e, NameId n,
                                               std::uint32_t cls) noexcept {
  std::uint32_t lo = ev.group_begin[e], hi = ev.group_begin[e + 1];
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    const EventGroup& g = ev.groups[mid];
    if (g.name < n || (g.name == n && g.cls < cls))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ev.group_begin[e + 1] && ev.groups[lo].name == n && ev.groups[lo].cls == cls ? &ev.groups[lo]
                                                                                           : nullptr;
}

// Whether event e holds name n.
SEXTANT_HD inline bool holds_name(const EventsView& ev, std::uint32_t e, NameId n) noexcept {
  std::uint32_t lo = ev.name_begin[e], hi = ev.name_begin[e + 1];
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (ev.names[mid] < n)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ev.name_begin[e + 1] && ev.names[lo] == n;
}

// Whether event e satisfies entry i (absolute index) of the entry pool.
SEXTANT_HD inline bool entry_satisfied(const ShardView& t, std::uint32_t i, const EventsView& ev,
                                       std::uint32_t e) noexcept {
  const std::uint8_t code = t.entry_code[i];
  const TypeClass cls = entry_class(code);
  if (cls == TypeClass::any) return holds_name(ev, e, t.entry_name[i]);
  const EventGroup* g = find_group(ev, e, t.entry_name[i], static_cast<std::uint32_t>(cls));
  return g != nullptr && any_satisfies(entry_op(code), t.entry_a[i], t.entry_b[i], *g, ev, t.strings);
}

// Filter by filter through the page's filter-major index: a filter stops at its first
// unsatisfied constraint. Cheap when few of the page's filters survived.
SEXTANT_HD inline std::uint64_t complete_by_filter(const ShardView& t, PageId p, const EventsView& ev,
                                                   std::uint32_t e, std::uint64_t survivors) noexcept {
  const PageMeta page = t.pages[p];
  const std::uint64_t at = static_cast<std::uint64_t>(p) * policy::page_filters;
  const std::uint32_t base = page.entries_begin;
  std::uint64_t complete = 0;
  for (std::uint64_t s = survivors; s != 0; s &= s - 1) {
    std::uint32_t f = 0;
    for (std::uint64_t b = s & (~s + 1); b > 1; b >>= 1) ++f;  // index of the lowest set bit
    const std::uint32_t first = t.filter_first[at + f], size = t.filter_size[at + f];
    std::uint32_t count = 0;
    while (count < size && entry_satisfied(t, base + t.entry_order[base + first + count], ev, e)) ++count;
    if (count == size) complete |= std::uint64_t{1} << f;
  }
  return complete;
}

// Row by row (the paper's counting): the rows of the event's names, each entry of a surviving
// filter evaluated against all attributes of its name and class. Cheap when most filters survived.
SEXTANT_HD inline std::uint64_t complete_by_row(const ShardView& t, PageId p, const EventsView& ev,
                                                std::uint32_t e, std::uint64_t survivors) noexcept {
  std::uint32_t counts[policy::page_filters];
  for (std::uint32_t f = 0; f < policy::page_filters; ++f) counts[f] = 0;
  const PageMeta page = t.pages[p];
  const RowMeta* rows = t.rows + page.rows_begin;
  const std::uint32_t base = page.entries_begin;
  std::uint32_t g = ev.group_begin[e];
  const std::uint32_t g_end = ev.group_begin[e + 1];
  for (std::uint32_t k = ev.name_begin[e]; k < ev.name_begin[e + 1]; ++k) {
    const NameId n = ev.names[k];
    while (g < g_end && ev.groups[g].name < n) ++g;
    for (std::uint32_t r = lower_row(rows, page.rows_count, n); r < page.rows_count && rows[r].name == n;
         ++r) {
      const RowMeta row = rows[r];
      const std::uint32_t first = base + row.begin, last = base + row.begin + row.count;
      if (static_cast<TypeClass>(row.cls) == TypeClass::any) {  // exists: the event has the name
        for (std::uint32_t i = first; i < last; ++i) {
          const std::uint32_t f = t.entry_filter[i];
          counts[f] += static_cast<std::uint32_t>((survivors >> f) & 1);
        }
        continue;
      }
      std::uint32_t h = g;
      while (h < g_end && ev.groups[h].name == n && ev.groups[h].cls < row.cls) ++h;
      if (h == g_end || ev.groups[h].name != n || ev.groups[h].cls != row.cls) continue;
      const EventGroup group = ev.groups[h];
      for (std::uint32_t i = first; i < last; ++i) {
        const std::uint32_t f = t.entry_filter[i];
        if (((survivors >> f) & 1) == 0) continue;
        if (any_satisfies(entry_op(t.entry_code[i]), t.entry_a[i], t.entry_b[i], group, ev, t.strings))
          ++counts[f];
      }
    }
  }
  std::uint64_t complete = 0;
  const std::uint32_t* sizes = t.filter_size + static_cast<std::uint64_t>(p) * policy::page_filters;
  for (std::uint32_t f = 0; f < page.count; ++f)
    if (((survivors >> f) & 1) != 0 && counts[f] == sizes[f]) complete |= std::uint64_t{1} << f;
  return complete;
}

// The complete filters among `survivors` (a mask of page p's locals) for event e.
SEXTANT_HD inline std::uint64_t complete_filters(const ShardView& t, PageId p, const EventsView& ev,
                                                 std::uint32_t e, std::uint64_t survivors) noexcept {
  std::uint32_t n = 0;
  for (std::uint64_t s = survivors; s != 0; s &= s - 1) ++n;
  return n * policy::row_counting_share <= t.pages[p].count ? complete_by_filter(t, p, ev, e, survivors)
                                                            : complete_by_row(t, p, ev, e, survivors);
}

// The scalar Bloom scan: the locals whose signature the event's covers.
SEXTANT_HD inline std::uint64_t bloom_survivors(const std::uint64_t* blooms, std::uint32_t count,
                                                std::uint64_t event_bloom) noexcept {
  std::uint64_t out = 0;
  for (std::uint32_t f = 0; f < count; ++f)
    if ((blooms[f] & ~event_bloom) == 0) out |= std::uint64_t{1} << f;
  return out;
}

}  // namespace sextant::matching
