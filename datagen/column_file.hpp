// Single columns of values for the window family: the binary column file, the value column
// of a stream CSV, and a seeded generator.
//
// Binary column file, little endian, loaded with one read:
//
//   offset  size  field
//        0     4  magic "SXTC"
//        4     4  uint32 version = 1
//        8     4  uint32 element type: 1 int32, 2 int64, 3 float32, 4 float64
//       12     4  uint32 reserved = 0
//       16     8  uint64 n (values)
//       24  n*sz  the values
//
// Stream CSV (the window family's input, datagen/stream_csv.hpp): rows `key,ts,value,wm`. The
// --inplace count windows take its value column in row order, parsed as the requested type.
//
// NaN and infinite values are bad input everywhere (errors name the file and the row/index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sextant::datagen {

class InputFile;

enum class ColumnType : std::uint32_t { int32 = 1, int64 = 2, float32 = 3, float64 = 4 };

// Alternatives in ColumnType order (index = code - 1).
using ColumnData = std::variant<std::vector<std::int32_t>, std::vector<std::int64_t>, std::vector<float>,
                                std::vector<double>>;

inline constexpr char column_magic[4] = {'S', 'X', 'T', 'C'};
inline constexpr std::uint32_t column_version = 1;
inline constexpr std::size_t column_header_bytes = 24;

ColumnType type_of(const ColumnData& column) noexcept;
std::size_t size_of(const ColumnData& column) noexcept;
std::string_view to_string(ColumnType type) noexcept;

// Throws Error::io when the file cannot be read and Error (bad_input) naming the file for a
// bad magic, version, type code, reserved field, a size that does not match the header, or a
// NaN/infinite value (naming its 0-based index).
ColumnData read_column_file(const std::string& path);
// The same from an input opened at its start (bytes only peeked at count as unread); nothing
// may follow the data.
ColumnData read_column_file(InputFile& file);
// All or nothing (core/atomic_file.hpp).
void write_column_file(const std::string& path, const ColumnData& column);
// True iff the file can be opened and starts with "SXTC".
bool looks_like_column_file(const std::string& path);

struct StreamValues {
  ColumnData values;
  bool several_keys = false;  // rows carry more than one distinct key
};
// The value column of a stream CSV, as `type`: a projection of read_stream_csv, so every cell
// is checked (errors name file, line and column).
StreamValues read_stream_csv_values(const std::string& path, ColumnType type);
StreamValues parse_stream_csv_values(std::string_view text, const std::string& origin, ColumnType type);

// n values, deterministic for (type, n, seed) on any machine and thread count: int32 uniform
// over the whole range, int64 uniform in [-2^40, 2^40), float/double uniform in [-1000, 1000].
ColumnData generate_column(ColumnType type, std::size_t n, std::uint64_t seed);

}  // namespace sextant::datagen
