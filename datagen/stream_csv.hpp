// The stream CSV of the window family: one tuple per row, `key,ts,value,wm`, in arrival order.
//
//   key    unsigned integer, 0 .. 2^32 - 1
//   ts     the event time, a signed 64-bit integer >= 0
//   value  a finite number (integer or floating point; NaN and infinities are bad input)
//   wm     the source's watermark after this tuple, a signed 64-bit integer (may be negative);
//          empty: the tuple carries no watermark (window::no_watermark in the column)
//
// An optional header line (the first line, taken as a header when none of its cells is a
// number), CRLF line ends, spaces or tabs around a cell, a leading '+', a UTF-8 byte order mark
// at the start and blank lines at the end are tolerated; a line longer than max_line_bytes
// (datagen/input_file.hpp) is an error. Every other problem is an Error (bad_input) naming the
// file, the 1-based line and the 1-based column (1 key, 2 ts, 3 value, 4 wm). This is the one
// parser of stream rows: read_stream_csv_values (datagen/column_file.hpp) is a projection of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/number_format.hpp"
#include "datagen/column_file.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::datagen {

inline constexpr std::string_view stream_csv_header = "key,ts,value,wm";

struct StreamCsvOptions {
  // The type the values are parsed as. nullopt: int64 when every value is an integer (within
  // the int64 range), else double.
  std::optional<ColumnType> value_type;
  // Check every cell but keep only the values (keys, timestamps and watermarks stay empty).
  bool values_only = false;
};

struct StreamCsv {
  std::vector<window::StreamKey> keys;
  std::vector<std::int64_t> timestamps;
  ColumnData values;
  std::vector<std::int64_t> watermarks;
  bool several_keys = false;  // the rows carry more than one distinct key

  std::size_t size() const noexcept { return size_of(values); }
};

// Throws Error::io when the file cannot be read.
StreamCsv read_stream_csv(const std::string& path, const StreamCsvOptions& options = {});
StreamCsv parse_stream_csv(std::string_view text, const std::string& origin,
                           const StreamCsvOptions& options = {});

namespace detail {
// parse_stream_csv with the text cut into `chunks` pieces of whole lines, parsed in parallel
// (parse_stream_csv uses every core from a few MiB on); the same result and the same first error.
StreamCsv parse_stream_csv_in_chunks(std::string_view text, const std::string& origin,
                                     const StreamCsvOptions& options, int chunks);
}  // namespace detail

// Header and rows; values exact (integers in decimal, floats shortest round-trip).
void write_stream_csv(std::ostream& out, const StreamCsv& stream);

// One row, without a line end: what every writer of stream CSV appends.
template <class T>
void append_stream_csv_row(std::string& out, window::StreamKey key, std::int64_t ts, T value,
                           std::int64_t wm) {
  append_number(out, key);
  out += ',';
  append_number(out, ts);
  out += ',';
  append_number(out, value);
  out += ',';
  if (wm != window::no_watermark) append_number(out, wm);
}

}  // namespace sextant::datagen
