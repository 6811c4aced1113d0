// How values are spelled in the pub/sub text format (docs/matching.md, "Text format"), shared by
// the writers and by error messages:
//
//   int64    decimal, optional '-':                    -12
//   double   shortest round-trip, always with '.', 'e': 2.5  1.0  1e+300
//   bool     true | false
//   string   double quotes; \" \\ \n \t \r and \xHH for every other byte below 0x20, 0x7f and
//            every byte >= 0x80 (so the output is ASCII and any bytes round-trip)
#pragma once

#include <string>
#include <string_view>

#include "templates/matching/value.hpp"

namespace sextant::matching {

// Appends the text format's spelling of `v`.
void append_value(std::string& out, const Value& v);
void append_int(std::string& out, std::int64_t v);
void append_double(std::string& out, double v);
// `bytes` quoted and escaped as above.
void append_quoted(std::string& out, std::string_view bytes);

std::string format_value(const Value& v);
// `bytes` escaped as inside quotes, without the quotes (for names in messages).
std::string escape_bytes(std::string_view bytes);

}  // namespace sextant::matching
