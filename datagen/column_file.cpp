#include "datagen/column_file.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "datagen/binary_header.hpp"
#include "datagen/input_file.hpp"
#include "datagen/stream_csv.hpp"

namespace sextant::datagen {

namespace {

using detail::store_le;

constexpr detail::BinaryFormat format{std::string_view(column_magic, sizeof column_magic), "column file",
                                      "column", column_version, column_header_bytes};

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
  detail::BinaryReader reader(file, format);
  const auto code = reader.field<std::uint32_t>(8);
  const auto n = reader.field<std::uint64_t>(16);
  if (code < 1 || code > 4)
    reader.fail("unknown element type code " + std::to_string(code) +
                " (valid: 1 int32, 2 int64, 3 float32, 4 float64)");
  reader.check_reserved(12);
  const auto type = static_cast<ColumnType>(code);
  reader.expect_payload(n, element_bytes(type),
                        "n = " + std::to_string(n) + " " + std::string(to_string(type)) + " values");
  ColumnData data = make_data(type, 0);
  std::visit(
      [&](auto& v) {
        reader.read_payload(v);
        if constexpr (std::is_floating_point_v<typename std::decay_t<decltype(v)>::value_type>) {
          for (std::size_t i = 0; i < v.size(); ++i)
            if (!std::isfinite(v[i]))
              reader.fail("value #" + std::to_string(i) + " is NaN or infinite (bad input)");
        }
      },
      data);
  reader.check_nothing_follows();
  return data;
}

void write_column_file(const std::string& path, const ColumnData& column) {
  AtomicFile file(path, /*binary=*/true);
  char header[column_header_bytes] = {};
  std::memcpy(header, column_magic, sizeof column_magic);
  store_le<std::uint32_t>(header + 4, column_version);
  store_le<std::uint32_t>(header + 8, static_cast<std::uint32_t>(type_of(column)));
  store_le<std::uint64_t>(header + 16, size_of(column));
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
  return detail::starts_with_magic(path, format.magic);
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
