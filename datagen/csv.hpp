// CSV datasets: one point per line, comma-separated numbers, optional header line.
//
// Tolerated: one trailing comma per line, CRLF line ends, spaces or tabs around a number,
// blank lines at the end of the file, a leading '+', a UTF-8 byte order mark at the start. A
// line longer than max_line_bytes (datagen/input_file.hpp) is an error. Everything else that is not a finite
// float is an error naming the file, the 1-based file line and the 1-based cell.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "core/dataset.hpp"

namespace sextant::datagen {

enum class CsvHeader {
  automatic,  // the first line is a header iff none of its cells parses as a number
  present,    // the first line is a header whatever it holds
  absent,     // the first line is data
};

struct CsvOptions {
  CsvHeader header = CsvHeader::automatic;
  std::vector<Preference> preferences{};  // one per column; empty = all min
};

// Reads the whole file (once, with the line bound of read_text), then parses it as parse_csv
// does with origin = path. Throws Error::io when it cannot be read, Error (bad_input) for
// malformed content and Error::argument on "--prefer" when the preference count differs from
// the column count.
Dataset read_csv(const std::string& path, const CsvOptions& options = {});
Dataset parse_csv(std::string_view text, const std::string& origin, const CsvOptions& options = {});

// Values as the user gave them (Dataset::input_value), shortest round-trip formatting, so
// reading the output back gives bit-identical floats. No header, no trailing comma.
void write_csv(std::ostream& out, const Dataset& data);
// All or nothing (core/atomic_file.hpp).
void write_csv(const std::string& path, const Dataset& data);

namespace detail {
// Throws Error::argument on "--prefer" unless `preferences` is empty or has d entries.
void check_preference_count(const std::vector<Preference>& preferences, int d);
// parse_csv with the data rows cut into `chunks` pieces of whole lines, parsed in parallel
// (parse_csv uses every core from a few MiB on); the same result and the same first error.
Dataset parse_csv_in_chunks(std::string_view text, const std::string& origin, const CsvOptions& options,
                            int chunks);
}  // namespace detail

}  // namespace sextant::datagen
