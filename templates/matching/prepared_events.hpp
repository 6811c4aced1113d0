// A batch of events as the hooks read it (EventsView, table_view.hpp): names resolved to the
// tables' ids (an attribute whose name no filter uses is dropped: no constraint can read it),
// attributes grouped by (name, type class) so that a constraint is evaluated once against all
// attributes of its name, numbers in canonical form (value.hpp), and each event's Bloom
// signature. Built on the host in one pass, cut into parts of consecutive events when threads are
// offered (ParallelParts); the buffers are reused from batch to batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <span>
#include <vector>

#include "core/parallel_parts.hpp"
#include "templates/matching/columns.hpp"
#include "templates/matching/table_view.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::matching {

class PreparedEvents {
 public:
  // The columns a device copies live in `memory` (page-locked host memory when a GPU matches:
  // copied without staging); the rest in the default heap.
  explicit PreparedEvents(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : name_begin_(memory),
        names_(memory),
        group_begin_(memory),
        groups_(memory),
        value_a_(memory),
        value_b_(memory),
        bloom_(memory) {}

  // Events [begin, end) of `batch` against `tables`. Throws Error::argument naming the event (its
  // id) for a NaN or infinite value or inconsistent columns, and when the range holds 2^32 or more
  // attributes (split the batch); the first bad event in order is named, whatever the parts. The
  // view points into `batch` for string values: keep it alive. With `threads`, parts of at least
  // policy::Batches::min_prepare_part events are prepared at once (the result is the same).
  void prepare(const EventBatch& batch, std::size_t begin, std::size_t end, const MatchTables& tables,
               ParallelParts* threads = nullptr);

  EventsView view() const noexcept;
  std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(ids_.size()); }
  std::span<const EventId> ids() const noexcept { return ids_; }

  // The raw columns (a GPU copies them).
  std::span<const std::uint32_t> name_begin() const noexcept { return name_begin_; }
  std::span<const NameId> names() const noexcept { return names_; }
  std::span<const std::uint32_t> group_begin() const noexcept { return group_begin_; }
  std::span<const EventGroup> groups() const noexcept { return groups_; }
  std::span<const std::uint64_t> value_a() const noexcept { return value_a_; }
  std::span<const std::uint64_t> value_b() const noexcept { return value_b_; }
  std::span<const std::uint64_t> blooms() const noexcept { return bloom_; }
  const char* strings() const noexcept { return strings_; }
  std::size_t string_bytes() const noexcept { return string_bytes_; }

 private:
  struct Pending {
    NameId name;
    std::uint32_t cls;
    std::uint64_t a, b;
  };
  // Events [begin, end) of a batch, prepared by one thread straight into the columns from the
  // part's first attribute on (names, groups and values never outnumber attributes); the parts
  // are then closed up where attributes were dropped or names repeated.
  struct Part {
    std::size_t begin = 0, end = 0;
    std::uint32_t at = 0;  // the part's first attribute, relative to the range's
    std::uint32_t names = 0, groups = 0, values = 0;
    std::vector<NameId> translate;         // batch name index -> table name id (no_name: no filter uses it)
    std::vector<std::uint64_t> name_bits;  // batch name index -> its Bloom bits (once looked up)
    std::vector<std::uint64_t> keys;       // an event's attributes: name << 32 | class << 24 | position
    std::vector<Pending> pending;
  };
  void prepare_part(const EventBatch& batch, std::size_t first_event, const MatchTables& tables, Part& part);
  void close_up(std::size_t count);

  std::vector<EventId> ids_;
  std::pmr::vector<std::uint32_t> name_begin_;
  std::pmr::vector<NameId> names_;
  std::pmr::vector<std::uint32_t> group_begin_;
  std::pmr::vector<EventGroup> groups_;
  std::pmr::vector<std::uint64_t> value_a_, value_b_;
  std::pmr::vector<std::uint64_t> bloom_;
  static constexpr NameId not_looked_up = 0xFFFFFFFEu;
  static constexpr std::size_t key_positions = std::size_t{1} << 24;
  static constexpr std::size_t rank_sort_limit = 16;
  std::vector<Part> parts_;
  const char* strings_ = nullptr;
  std::size_t string_bytes_ = 0;
};

}  // namespace sextant::matching
