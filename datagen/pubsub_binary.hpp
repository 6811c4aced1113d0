// The pub/sub binary formats for large runs (docs/matching.md, "Binary format"): the columns of
// a FilterSet or an EventBatch as they are in memory, little endian, read with one read and one
// validating pass.
//
//   filters "SXMF", events "SXME"; header of 48 bytes:
//     0  magic            4 bytes
//     4  uint32 version   1
//     8  uint64 items     filters or events
//    16  uint64 entries   constraints or attributes
//    24  uint32 names
//    28  uint32 0
//    32  uint64 string bytes (names and string values)
//    40  uint64 0
//   payload:
//     names     names x {uint64 offset, uint64 length} into the string bytes
//     items     filters x {uint64 id, uint32 interface, uint32 0, uint64 constraints}
//               events  x {uint64 id, uint64 attributes}
//     entries   x {uint32 name, uint8 op (events: 0), uint8 type, uint16 0, uint64 a, uint64 b}
//               (types 0 int64, 1 double, 2 bool, 3 string; ops in the order of
//               templates/matching/value.hpp; a, b as RawValue: strings are offset, length)
//     strings   the string bytes
// Everything is checked (sizes, ranges, names, operators and types, NaN): Error (bad_input) naming
// the file and what is wrong.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "datagen/input_file.hpp"
#include "templates/matching/columns.hpp"

namespace sextant::datagen {

inline constexpr std::string_view pubsub_filters_magic = "SXMF";
inline constexpr std::string_view pubsub_events_magic = "SXME";
inline constexpr std::uint32_t pubsub_binary_version = 1;

matching::FilterSet read_filters_binary(InputFile& file);
matching::EventBatch read_events_binary(InputFile& file);

void write_filters_binary(std::ostream& out, const matching::FilterSet& filters);
void write_events_binary(std::ostream& out, const matching::EventBatch& events);
// All or nothing (core/atomic_file.hpp).
void write_filters_binary(const std::string& path, const matching::FilterSet& filters);
void write_events_binary(const std::string& path, const matching::EventBatch& events);

}  // namespace sextant::datagen
