#include "datagen/pubsub_binary.hpp"

#include <cstring>
#include <ostream>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "datagen/binary_header.hpp"

namespace sextant::datagen {

using detail::load_le;
using detail::store_le;
using matching::EventBatch;
using matching::FilterSet;
using matching::RawValue;
using matching::ValueType;

namespace {

constexpr std::size_t header_bytes = 48;
constexpr std::uint64_t name_bytes = 16, filter_bytes = 24, event_bytes = 16, entry_bytes = 24;

constexpr detail::BinaryFormat filters_format{pubsub_filters_magic, "pub/sub filters file", "pub/sub filters",
                                              pubsub_binary_version, header_bytes};
constexpr detail::BinaryFormat events_format{pubsub_events_magic, "pub/sub events file", "pub/sub events",
                                             pubsub_binary_version, header_bytes};

struct Counts {
  std::uint64_t items, entries, strings;
  std::uint32_t names;
};

// Reads the header and the payload; returns the payload.
std::vector<char> read_all(detail::BinaryReader& reader, std::uint64_t item_bytes, Counts& c,
                           const char* item_name, const char* entry_name) {
  c.items = reader.field<std::uint64_t>(8);
  c.entries = reader.field<std::uint64_t>(16);
  c.names = reader.field<std::uint32_t>(24);
  reader.check_reserved(28);
  c.strings = reader.field<std::uint64_t>(32);
  if (reader.field<std::uint64_t>(40) != 0) reader.fail("reserved header field at offset 40 is not 0");
  constexpr std::uint64_t limit = std::uint64_t{1} << 56;  // keeps every product below 2^63
  if (c.items > limit / item_bytes || c.entries > limit / entry_bytes || c.strings > limit)
    reader.fail("header counts beyond any file size");
  const std::uint64_t total =
      c.names * name_bytes + c.items * item_bytes + c.entries * entry_bytes + c.strings;
  reader.expect_payload(total, 1,
                        std::to_string(c.items) + " " + item_name + ", " + std::to_string(c.entries) + " " +
                            entry_name + ", " + std::to_string(c.names) + " names, " +
                            std::to_string(c.strings) + " string bytes");
  std::vector<char> payload;
  reader.read_payload(payload);
  reader.check_nothing_follows();
  return payload;
}

void read_names(const detail::BinaryReader& reader, const char* at, const Counts& c, const char* strings,
                matching::NameDictionary& names) {
  for (std::uint32_t i = 0; i < c.names; ++i) {
    const auto offset = load_le<std::uint64_t>(at + i * name_bytes);
    const auto length = load_le<std::uint64_t>(at + i * name_bytes + 8);
    if (offset > c.strings || length > c.strings - offset)
      reader.fail("name " + std::to_string(i) + " lies outside the string bytes");
    const std::string_view name(strings + offset, length);
    if (std::string p = matching::name_problem(name); !p.empty())
      reader.fail("name " + std::to_string(i) + ": " + p);
    if (names.intern(name) != i) reader.fail("name " + std::to_string(i) + " repeats an earlier name");
  }
}

void read_entry(const char* p, std::uint32_t& name, std::uint8_t& op, std::uint8_t& type, RawValue& v) {
  name = load_le<std::uint32_t>(p);
  op = static_cast<std::uint8_t>(p[4]);
  type = static_cast<std::uint8_t>(p[5]);
  v = {load_le<std::uint64_t>(p + 8), load_le<std::uint64_t>(p + 16)};
}

template <class F>
void rethrow_in_file(const InputFile& file, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::bad_argument) throw;
    throw Error::in_file(file.path(), 0, 0, e.what());
  }
}

void write_header(std::ostream& out, std::string_view magic, std::uint64_t items, std::uint64_t entries,
                  std::uint32_t names, std::uint64_t strings) {
  char header[header_bytes] = {};
  std::memcpy(header, magic.data(), 4);
  store_le<std::uint32_t>(header + 4, pubsub_binary_version);
  store_le<std::uint64_t>(header + 8, items);
  store_le<std::uint64_t>(header + 16, entries);
  store_le<std::uint32_t>(header + 24, names);
  store_le<std::uint64_t>(header + 32, strings);
  out.write(header, header_bytes);
}

// Names first in the string bytes, then the values' bytes (offsets shifted by the names' bytes).
std::string name_bytes_of(const matching::NameDictionary& names, std::string& table) {
  std::string bytes;
  table.assign(names.size() * name_bytes, '\0');
  for (std::uint32_t i = 0; i < names.size(); ++i) {
    store_le<std::uint64_t>(table.data() + i * name_bytes, bytes.size());
    store_le<std::uint64_t>(table.data() + i * name_bytes + 8, names.name(i).size());
    bytes += names.name(i);
  }
  return bytes;
}

void write_entries(std::ostream& out, std::size_t count, const std::uint32_t* name, const matching::Op* op,
                   const ValueType* type, const RawValue* value, std::uint64_t shift) {
  std::string chunk;
  for (std::size_t i = 0; i < count; ++i) {
    char e[entry_bytes] = {};
    store_le<std::uint32_t>(e, name[i]);
    e[4] = static_cast<char>(op ? static_cast<std::uint8_t>(op[i]) : 0);
    e[5] = static_cast<char>(type[i]);
    RawValue v = value[i];
    if (type[i] == ValueType::string && !(op && op[i] == matching::Op::exists)) v.a += shift;
    store_le<std::uint64_t>(e + 8, v.a);
    store_le<std::uint64_t>(e + 16, v.b);
    chunk.append(e, entry_bytes);
    if (chunk.size() >= (1u << 20)) {
      out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      chunk.clear();
    }
  }
  out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
}

}  // namespace

FilterSet read_filters_binary(InputFile& file) {
  detail::BinaryReader reader(file, filters_format);
  Counts c{};
  const std::vector<char> payload = read_all(reader, filter_bytes, c, "filters", "constraints");
  const char* names_at = payload.data();
  const char* items_at = names_at + c.names * name_bytes;
  const char* entries_at = items_at + c.items * filter_bytes;
  const char* strings = entries_at + c.entries * entry_bytes;
  FilterSet out;
  read_names(reader, names_at, c, strings, out.names);
  out.strings.assign(strings, c.strings);
  out.ids.reserve(c.items);
  out.interfaces.reserve(c.items);
  out.offsets.reserve(c.items + 1);
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < c.items; ++i) {
    const char* p = items_at + i * filter_bytes;
    if (load_le<std::uint32_t>(p + 12) != 0)
      reader.fail("filter " + std::to_string(i) + ": reserved field is not 0");
    const auto count = load_le<std::uint64_t>(p + 16);
    if (count > c.entries - total) reader.fail("the filters hold more constraints than the header says");
    total += count;
    out.ids.push_back(load_le<std::uint64_t>(p));
    out.interfaces.push_back(load_le<std::uint32_t>(p + 8));
    out.offsets.push_back(total);
  }
  if (total != c.entries) reader.fail("the filters hold fewer constraints than the header says");
  out.constraint_name.resize(c.entries);
  out.constraint_op.resize(c.entries);
  out.constraint_type.resize(c.entries);
  out.constraint_value.resize(c.entries);
  for (std::uint64_t i = 0; i < c.entries; ++i) {
    std::uint8_t op = 0, type = 0;
    read_entry(entries_at + i * entry_bytes, out.constraint_name[i], op, type, out.constraint_value[i]);
    if (op >= matching::op_count)
      reader.fail("constraint " + std::to_string(i) + ": unknown operator " + std::to_string(op));
    if (type > static_cast<std::uint8_t>(ValueType::string))
      reader.fail("constraint " + std::to_string(i) + ": unknown value type " + std::to_string(type));
    out.constraint_op[i] = static_cast<matching::Op>(op);
    out.constraint_type[i] = static_cast<ValueType>(type);
  }
  rethrow_in_file(file, [&] { out.check(file.path()); });
  return out;
}

EventBatch read_events_binary(InputFile& file) {
  detail::BinaryReader reader(file, events_format);
  Counts c{};
  const std::vector<char> payload = read_all(reader, event_bytes, c, "events", "attributes");
  const char* names_at = payload.data();
  const char* items_at = names_at + c.names * name_bytes;
  const char* entries_at = items_at + c.items * event_bytes;
  const char* strings = entries_at + c.entries * entry_bytes;
  EventBatch out;
  read_names(reader, names_at, c, strings, out.names);
  out.strings.assign(strings, c.strings);
  out.ids.reserve(c.items);
  out.offsets.reserve(c.items + 1);
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < c.items; ++i) {
    const char* p = items_at + i * event_bytes;
    const auto count = load_le<std::uint64_t>(p + 8);
    if (count > c.entries - total) reader.fail("the events hold more attributes than the header says");
    total += count;
    out.ids.push_back(load_le<std::uint64_t>(p));
    out.offsets.push_back(total);
  }
  if (total != c.entries) reader.fail("the events hold fewer attributes than the header says");
  out.attribute_name.resize(c.entries);
  out.attribute_type.resize(c.entries);
  out.attribute_value.resize(c.entries);
  for (std::uint64_t i = 0; i < c.entries; ++i) {
    std::uint8_t op = 0, type = 0;
    read_entry(entries_at + i * entry_bytes, out.attribute_name[i], op, type, out.attribute_value[i]);
    if (op != 0) reader.fail("attribute " + std::to_string(i) + ": the operator byte is not 0");
    if (type > static_cast<std::uint8_t>(ValueType::string))
      reader.fail("attribute " + std::to_string(i) + ": unknown value type " + std::to_string(type));
    out.attribute_type[i] = static_cast<ValueType>(type);
  }
  rethrow_in_file(file, [&] { out.check(file.path()); });
  return out;
}

void write_filters_binary(std::ostream& out, const FilterSet& filters) {
  std::string table;
  const std::string names = name_bytes_of(filters.names, table);
  write_header(out, pubsub_filters_magic, filters.size(), filters.constraints(), filters.names.size(),
               names.size() + filters.strings.size());
  out.write(table.data(), static_cast<std::streamsize>(table.size()));
  std::string items;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    char e[filter_bytes] = {};
    store_le<std::uint64_t>(e, filters.ids[i]);
    store_le<std::uint32_t>(e + 8, filters.interfaces[i]);
    store_le<std::uint64_t>(e + 16, filters.offsets[i + 1] - filters.offsets[i]);
    items.append(e, filter_bytes);
  }
  out.write(items.data(), static_cast<std::streamsize>(items.size()));
  write_entries(out, filters.constraints(), filters.constraint_name.data(), filters.constraint_op.data(),
                filters.constraint_type.data(), filters.constraint_value.data(), names.size());
  out.write(names.data(), static_cast<std::streamsize>(names.size()));
  out.write(filters.strings.data(), static_cast<std::streamsize>(filters.strings.size()));
}

void write_events_binary(std::ostream& out, const EventBatch& events) {
  std::string table;
  const std::string names = name_bytes_of(events.names, table);
  write_header(out, pubsub_events_magic, events.size(), events.attributes(), events.names.size(),
               names.size() + events.strings.size());
  out.write(table.data(), static_cast<std::streamsize>(table.size()));
  std::string items;
  for (std::size_t i = 0; i < events.size(); ++i) {
    char e[event_bytes] = {};
    store_le<std::uint64_t>(e, events.ids[i]);
    store_le<std::uint64_t>(e + 8, events.offsets[i + 1] - events.offsets[i]);
    items.append(e, event_bytes);
  }
  out.write(items.data(), static_cast<std::streamsize>(items.size()));
  write_entries(out, events.attributes(), events.attribute_name.data(), nullptr, events.attribute_type.data(),
                events.attribute_value.data(), names.size());
  out.write(names.data(), static_cast<std::streamsize>(names.size()));
  out.write(events.strings.data(), static_cast<std::streamsize>(events.strings.size()));
}

void write_filters_binary(const std::string& path, const FilterSet& filters) {
  AtomicFile file(path, /*binary=*/true);
  write_filters_binary(file.stream(), filters);
  file.commit();
}

void write_events_binary(const std::string& path, const EventBatch& events) {
  AtomicFile file(path, /*binary=*/true);
  write_events_binary(file.stream(), events);
  file.commit();
}

}  // namespace sextant::datagen
