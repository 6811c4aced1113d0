// Sextant's binary dataset format, little endian, loaded with one read:
//
//   offset  size  field
//        0     4  magic "SXTD"
//        4     4  uint32 version = 1
//        8     8  uint64 n (points)
//       16     4  uint32 d (columns, 1..32)
//       20     4  uint32 reserved = 0
//       24  n*d*4 float32 values, row-major, as the user gave them (preferences are applied at load)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "datagen/csv.hpp"
#include "datagen/input_file.hpp"

namespace sextant::datagen {

inline constexpr char binary_magic[4] = {'S', 'X', 'T', 'D'};
inline constexpr std::uint32_t binary_version = 1;
inline constexpr std::size_t binary_header_bytes = 24;

// Throws Error::io when the file cannot be read, Error (bad_input) naming the file for a bad
// magic, an unsupported version, a size that does not match the header, d outside 1..32 or a
// NaN/infinite value, and Error::argument on "--prefer" for a wrong preference count.
Dataset read_binary(const std::string& path, const std::vector<Preference>& preferences = {});
// The same from an input opened at its start (bytes only peeked at count as unread); nothing
// may follow the data.
Dataset read_binary(InputFile& file, const std::vector<Preference>& preferences = {});
// All or nothing (core/atomic_file.hpp).
void write_binary(const std::string& path, const Dataset& data);
// True iff the file can be opened and starts with the magic.
bool looks_binary(const std::string& path);
// read_binary (with options.preferences) when the file starts with the magic, read_csv otherwise;
// the path is opened and read once (a FIFO or a pipe works).
Dataset read_dataset(const std::string& path, const CsvOptions& options = {});

}  // namespace sextant::datagen
