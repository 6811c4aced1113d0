#include "datagen/column_file.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <type_traits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "datagen/input_file.hpp"
#include "datagen/stream_csv.hpp"

namespace sextant::datagen {

static_assert(std::endian::native == std::endian::little, "the column format is little endian");

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

std::size_t element_bytes(ColumnType type) noexcept {
  return type == ColumnType::int32 || type == ColumnType::float32 ? 4 : 8;
}

ColumnData make_data(ColumnType type, std::size_t n) {
  switch (type) {
    case ColumnType::int32:
      return std::vector<std::int32_t>(n);
    case ColumnType::int64:
      return std::vector<std::int64_t>(n);
    case ColumnType::float32:
      return std::vector<float>(n);
    case ColumnType::float64:
      break;
  }
  return std::vector<double>(n);
}

std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

ColumnType type_of(const ColumnData& column) noexcept {
  return static_cast<ColumnType>(column.index() + 1);
}

std::size_t size_of(const ColumnData& column) noexcept {
  return std::visit([](const auto& v) { return v.size(); }, column);
}

std::string_view to_string(ColumnType type) noexcept {
  switch (type) {
    case ColumnType::int32:
      return "int32";
    case ColumnType::int64:
      return "int64";
    case ColumnType::float32:
      return "float";
    case ColumnType::float64:
      return "double";
  }
  return "?";
}

ColumnData read_column_file(const std::string& path) {
  InputFile file(path);
  return read_column_file(file);
}

ColumnData read_column_file(InputFile& file) {
  const std::string& path = file.path();
  char header[column_header_bytes] = {};
  const std::size_t header_bytes = file.read(header, sizeof header);
  if (header_bytes < sizeof column_magic || std::memcmp(header, column_magic, sizeof column_magic) != 0)
    throw Error::in_file(path, 0, 0, "not a Sextant column file (it does not start with \"SXTC\")");
  if (header_bytes < column_header_bytes)
    throw Error::in_file(path, 0, 0,
                         "truncated: the file has " + std::to_string(header_bytes) +
                             " bytes, the header alone needs " + std::to_string(column_header_bytes));
  const auto version = load<std::uint32_t>(header + 4);
  const auto code = load<std::uint32_t>(header + 8);
  const auto reserved = load<std::uint32_t>(header + 12);
  const auto n = load<std::uint64_t>(header + 16);
  if (version != column_version)
    throw Error::in_file(path, 0, 0,
                         "unsupported column format version " + std::to_string(version) +
                             " (this build reads version " + std::to_string(column_version) + ")");
  if (code < 1 || code > 4)
    throw Error::in_file(path, 0, 0,
                         "unknown element type code " + std::to_string(code) +
                             " (valid: 1 int32, 2 int64, 3 float32, 4 float64)");
  if (reserved != 0)
    throw Error::in_file(
        path, 0, 0, "reserved header field is " + std::to_string(reserved) + ", expected 0 (corrupt file?)");
  const auto type = static_cast<ColumnType>(code);
  const std::size_t size = element_bytes(type);
  if (n > (std::numeric_limits<std::uint64_t>::max() - column_header_bytes) / size)
    throw Error::in_file(path, 0, 0,
                         "header says n = " + std::to_string(n) + ": larger than any file (corrupt header?)");
  const std::uint64_t expected = column_header_bytes + n * size;
  const auto size_mismatch = [&](std::uint64_t file_bytes, bool at_least) {
    return Error::in_file(path, 0, 0,
                          std::string(file_bytes < expected ? "truncated" : "trailing bytes") +
                              ": the file has " + (at_least ? "more than " : "") +
                              std::to_string(file_bytes) + " bytes, the header (n = " + std::to_string(n) +
                              " " + std::string(to_string(type)) + " values) needs " +
                              std::to_string(expected));
  };
  // A regular file's size is checked before anything is allocated; a pipe's as it is read.
  if (file.size() && *file.size() != expected) throw size_mismatch(*file.size(), false);
  if (n > std::numeric_limits<std::size_t>::max() / size)
    throw Error::in_file(path, 0, 0, "header says n = " + std::to_string(n) + ": too large for this machine");
  ColumnData data = make_data(type, 0);
  std::visit(
      [&](auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        // From a pipe in growing chunks (64 KiB, then doubling), so that a corrupt n runs out of
        // data before much is allocated.
        constexpr std::size_t first_chunk = (std::size_t{1} << 16) / sizeof(T);
        const auto count = static_cast<std::size_t>(n);
        while (v.size() < count) {
          const std::size_t old = v.size();
          const std::size_t take = file.size() ? count : std::min(std::max(first_chunk, old), count - old);
          v.resize(old + take);
          const std::size_t got = file.read(v.data() + old, take * sizeof(T));
          if (got != take * sizeof(T)) {
            if (file.size()) throw Error::io(path, "read failed: the file shrank while it was read");
            throw size_mismatch(column_header_bytes + old * sizeof(T) + got, false);
          }
        }
        if constexpr (std::is_floating_point_v<T>) {
          for (std::size_t i = 0; i < v.size(); ++i)
            if (!std::isfinite(v[i]))
              throw Error::in_file(path, 0, 0,
                                   "value #" + std::to_string(i) + " is NaN or infinite (bad input)");
        }
      },
      data);
  constexpr std::uint64_t counted = std::uint64_t{1} << 20;
  if (const std::uint64_t extra = file.count_rest(counted); extra != 0)
    throw size_mismatch(expected + std::min(extra, counted), extra > counted);
  return data;
}

void write_column_file(const std::string& path, const ColumnData& column) {
  AtomicFile file(path, /*binary=*/true);
  char header[column_header_bytes] = {};
  std::memcpy(header, column_magic, sizeof column_magic);
  store<std::uint32_t>(header + 4, column_version);
  store<std::uint32_t>(header + 8, static_cast<std::uint32_t>(type_of(column)));
  store<std::uint64_t>(header + 16, size_of(column));
  file.stream().write(header, sizeof header);
  std::visit(
      [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        file.stream().write(reinterpret_cast<const char*>(v.data()),
                            static_cast<std::streamsize>(v.size() * sizeof(T)));
      },
      column);
  file.commit();
}

bool looks_like_column_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof column_magic] = {};
  return in.read(magic, sizeof magic) && std::memcmp(magic, column_magic, sizeof magic) == 0;
}

// A projection of the one stream-row parser (datagen/stream_csv.hpp): every cell is checked,
// only the values are kept.
StreamValues parse_stream_csv_values(std::string_view text, const std::string& origin, ColumnType type) {
  StreamCsv csv = parse_stream_csv(text, origin, {type, /*values_only=*/true});
  return {std::move(csv.values), csv.several_keys};
}

StreamValues read_stream_csv_values(const std::string& path, ColumnType type) {
  StreamCsv csv = read_stream_csv(path, {type, /*values_only=*/true});
  return {std::move(csv.values), csv.several_keys};
}

ColumnData generate_column(ColumnType type, std::size_t n, std::uint64_t seed) {
  ColumnData data = make_data(type, n);
  const std::uint64_t base = splitmix64(seed);
  std::visit(
      [&](auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < count; ++i) {
          const std::uint64_t r = splitmix64(base + static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ull);
          if constexpr (std::is_same_v<T, std::int32_t>) {
            v[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(r >> 32));
          } else if constexpr (std::is_same_v<T, std::int64_t>) {
            v[i] = static_cast<std::int64_t>(r >> 23) - (std::int64_t{1} << 40);
          } else {
            const double unit = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
            v[i] = static_cast<T>(-1000.0 + 2000.0 * unit);
          }
        }
      },
      data);
  return data;
}

}  // namespace sextant::datagen
