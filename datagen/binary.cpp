#include "datagen/binary.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "datagen/input_file.hpp"

namespace sextant::datagen {

// The payload is the in-memory float array, read and written without conversion.
static_assert(std::endian::native == std::endian::little, "the binary format is little endian");
static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559);

namespace {

template <class T>
T load(const char* bytes) noexcept {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

template <class T>
void store(char* bytes, T value) noexcept {
  std::memcpy(bytes, &value, sizeof value);
}

}  // namespace

Dataset read_binary(const std::string& path, const std::vector<Preference>& preferences) {
  InputFile file(path);
  return read_binary(file, preferences);
}

Dataset read_binary(InputFile& file, const std::vector<Preference>& preferences) {
  const std::string& path = file.path();
  char header[binary_header_bytes] = {};
  const std::size_t header_bytes = file.read(header, sizeof header);
  if (header_bytes < sizeof binary_magic || std::memcmp(header, binary_magic, sizeof binary_magic) != 0)
    throw Error::in_file(path, 0, 0, "not a Sextant binary dataset (it does not start with \"SXTD\")");
  if (header_bytes < binary_header_bytes)
    throw Error::in_file(path, 0, 0,
                         "truncated: the file has " + std::to_string(header_bytes) +
                             " bytes, the header alone needs " + std::to_string(binary_header_bytes));

  const auto version = load<std::uint32_t>(header + 4);
  const auto n = load<std::uint64_t>(header + 8);
  const auto d = load<std::uint32_t>(header + 16);
  const auto reserved = load<std::uint32_t>(header + 20);
  if (version != binary_version)
    throw Error::in_file(path, 0, 0,
                         "unsupported binary format version " + std::to_string(version) +
                             " (this build reads version " + std::to_string(binary_version) + ")");
  if (d < 1 || d > static_cast<std::uint32_t>(max_columns))
    throw Error::in_file(path, 0, 0,
                         "header says d = " + std::to_string(d) + "; supported: 1.." +
                             std::to_string(max_columns) + " columns");
  if (reserved != 0)
    throw Error::in_file(
        path, 0, 0, "reserved header field is " + std::to_string(reserved) + ", expected 0 (corrupt file?)");
  detail::check_preference_count(preferences, static_cast<int>(d));

  const std::uint64_t max_n = (std::numeric_limits<std::uint64_t>::max() - binary_header_bytes) / (4 * d);
  const std::string shape = "n = " + std::to_string(n) + ", d = " + std::to_string(d);
  if (n > max_n)
    throw Error::in_file(path, 0, 0, "header says " + shape + ": larger than any file (corrupt header?)");
  const std::uint64_t expected_bytes = binary_header_bytes + n * d * 4;
  const auto size_mismatch = [&](std::uint64_t file_bytes, bool at_least) {
    return Error::in_file(path, 0, 0,
                          std::string(file_bytes < expected_bytes ? "truncated" : "trailing bytes") +
                              ": the file has " + (at_least ? "more than " : "") +
                              std::to_string(file_bytes) + " bytes, the header (" + shape + ") needs " +
                              std::to_string(expected_bytes));
  };
  // A regular file's size is checked before anything is allocated; a pipe's as it is read.
  if (file.size() && *file.size() != expected_bytes) throw size_mismatch(*file.size(), false);
  if (n > 0xFFFFFFFEu)
    throw Error::in_file(path, 0, 0, "header says " + shape + ": at most 4294967294 points (32-bit ids)");

  const auto count = static_cast<std::size_t>(n * d);
  // From a pipe in growing chunks (64 KiB, then doubling), so that a corrupt n runs out of data
  // before much is allocated.
  constexpr std::size_t first_chunk = (std::size_t{1} << 16) / sizeof(float);
  std::vector<float> values;
  while (values.size() < count) {
    const std::size_t old = values.size();
    const std::size_t take = file.size() ? count : std::min(std::max(first_chunk, old), count - old);
    values.resize(old + take);
    const std::size_t got = file.read(values.data() + old, take * sizeof(float));
    if (got != take * sizeof(float)) {
      if (file.size()) throw Error::io(path, "read failed: the file shrank while it was read");
      throw size_mismatch(binary_header_bytes + old * sizeof(float) + got, false);
    }
  }
  constexpr std::uint64_t counted = std::uint64_t{1} << 20;
  if (const std::uint64_t extra = file.count_rest(counted); extra != 0)
    throw size_mismatch(expected_bytes + std::min(extra, counted), extra > counted);
  return Dataset(static_cast<std::size_t>(n), static_cast<int>(d), values, preferences, path);
}

void write_binary(const std::string& path, const Dataset& data) {
  AtomicFile file(path, /*binary=*/true);
  std::ostream& out = file.stream();

  char header[binary_header_bytes] = {};
  std::memcpy(header, binary_magic, sizeof binary_magic);
  store<std::uint32_t>(header + 4, binary_version);
  store<std::uint64_t>(header + 8, data.size());
  store<std::uint32_t>(header + 16, static_cast<std::uint32_t>(data.dims()));
  out.write(header, sizeof header);

  const bool as_stored = std::all_of(data.preferences().begin(), data.preferences().end(),
                                     [](Preference p) { return p == Preference::min; });
  if (as_stored) {
    const std::span<const float> values = data.values();
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size_bytes()));
  } else {
    // Max columns are stored negated; write them back in the user's orientation, in chunks.
    constexpr std::size_t chunk_rows = 4096;
    const int d = data.dims();
    std::vector<float> chunk(chunk_rows * static_cast<std::size_t>(d));
    for (std::size_t first = 0; first < data.size(); first += chunk_rows) {
      const std::size_t rows = std::min(chunk_rows, data.size() - first);
      for (std::size_t i = 0; i < rows; ++i)
        for (int j = 0; j < d; ++j) chunk[i * d + j] = data.input_value(static_cast<PointId>(first + i), j);
      out.write(reinterpret_cast<const char*>(chunk.data()),
                static_cast<std::streamsize>(rows * d * sizeof(float)));
    }
  }
  file.commit();
}

bool looks_binary(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof binary_magic] = {};
  return in.read(magic, sizeof magic) && std::memcmp(magic, binary_magic, sizeof magic) == 0;
}

Dataset read_dataset(const std::string& path, const CsvOptions& options) {
  InputFile file(path);  // opened once: a FIFO cannot be probed and then opened again
  if (file.peek(sizeof binary_magic) == std::string_view(binary_magic, sizeof binary_magic))
    return read_binary(file, options.preferences);
  return parse_csv(read_text(file), path, options);
}

}  // namespace sextant::datagen
