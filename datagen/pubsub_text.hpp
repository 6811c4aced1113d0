// The pub/sub text format (docs/matching.md, "Text format"): one filter or event per line.
//
//   # a comment; blank lines are ignored
//   filter <id> <interface>: <constraint>, <constraint>, ...
//   event [<id>]: <name> = <value>, <name> = <value>, ...
//
//   constraint  <name> <op> <value> | <name> exists
//   op          =  !=  <  <=  >  >=  prefix  suffix  substring
//   name        [A-Za-z_][A-Za-z0-9_.]*  (at most 255 bytes)
//   value       int64 (-12), double (2.5, 1e3, -0.0; a '.' or an exponent makes a double),
//               true | false, or a string in double quotes with the escapes \" \\ \n \t \r \xHH
//
// <id> is an unsigned 64-bit filter id (unique in a file), <interface> an unsigned 32-bit
// interface id; an event without an id gets its 0-based index among the file's events. Strings
// hold any bytes: UTF-8 text may be written as is, every other byte (control bytes, invalid UTF-8)
// as \xHH; a raw control byte or invalid UTF-8 is an error. Every problem is an Error (bad_input)
// naming the file, the 1-based line and the 1-based byte column. CRLF line ends, a UTF-8 byte
// order mark at the start and spaces or tabs between tokens are tolerated.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "templates/matching/columns.hpp"

namespace sextant::datagen {

matching::FilterSet parse_filters(std::string_view text, const std::string& origin);
matching::EventBatch parse_events(std::string_view text, const std::string& origin);

// Text or binary (pubsub_binary.hpp), told apart by the binary magic; throws Error::io when the
// file cannot be read.
matching::FilterSet read_filters(const std::string& path);
matching::EventBatch read_events(const std::string& path);

// The text format, one line per filter or event (ids always written).
void write_filters_text(std::ostream& out, const matching::FilterSet& filters);
void write_events_text(std::ostream& out, const matching::EventBatch& events);
// One line without its line end (appended to `out`).
void append_filter_line(std::string& out, const matching::FilterSet& filters, std::size_t i);
void append_event_line(std::string& out, const matching::EventBatch& events, std::size_t i);

}  // namespace sextant::datagen
