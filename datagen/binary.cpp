#include "datagen/binary.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "datagen/binary_header.hpp"
#include "datagen/input_file.hpp"

namespace sextant::datagen {

// The payload is the in-memory float array, read and written without conversion.
static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559);

namespace {

using detail::store_le;

constexpr detail::BinaryFormat format{std::string_view(binary_magic, sizeof binary_magic), "binary dataset",
                                      "binary", binary_version, binary_header_bytes};

}  // namespace

Dataset read_binary(const std::string& path, const std::vector<Preference>& preferences) {
  InputFile file(path);
  return read_binary(file, preferences);
}

Dataset read_binary(InputFile& file, const std::vector<Preference>& preferences) {
  detail::BinaryReader reader(file, format);
  const auto n = reader.field<std::uint64_t>(8);
  const auto d = reader.field<std::uint32_t>(16);
  if (d < 1 || d > static_cast<std::uint32_t>(max_columns))
    reader.fail("header says d = " + std::to_string(d) + "; supported: 1.." + std::to_string(max_columns) +
                " columns");
  reader.check_reserved(20);
  detail::check_preference_count(preferences, static_cast<int>(d));

  const std::string shape = "n = " + std::to_string(n) + ", d = " + std::to_string(d);
  reader.expect_payload(n, std::uint64_t{4} * d, shape);
  if (n > 0xFFFFFFFEu) reader.fail("header says " + shape + ": at most 4294967294 points (32-bit ids)");
  if (!file.size()) {  // a pipe: read in growing chunks, so a corrupt header cannot allocate much
    std::vector<float> values;
    reader.read_payload(values);
    reader.check_nothing_follows();
    return Dataset(static_cast<std::size_t>(n), static_cast<int>(d), values, preferences, file.path());
  }
  AlignedBuffer<float> values(static_cast<std::size_t>(n) * d);
  reader.read_payload_of_file(values.data());
  reader.check_nothing_follows();
  for (std::uint32_t j = 0; j < preferences.size(); ++j)
    if (preferences[j] == Preference::max)
      for (std::size_t i = j; i < values.size(); i += d) values[i] = -values[i];
  return Dataset::adopt(static_cast<std::size_t>(n), static_cast<int>(d), std::move(values), preferences,
                        file.path());
}

void write_binary(const std::string& path, const Dataset& data) {
  AtomicFile file(path, /*binary=*/true);
  std::ostream& out = file.stream();

  char header[binary_header_bytes] = {};
  std::memcpy(header, binary_magic, sizeof binary_magic);
  store_le<std::uint32_t>(header + 4, binary_version);
  store_le<std::uint64_t>(header + 8, data.size());
  store_le<std::uint32_t>(header + 16, static_cast<std::uint32_t>(data.dims()));
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
  return detail::starts_with_magic(path, format.magic);
}

Dataset read_dataset(const std::string& path, const CsvOptions& options) {
  InputFile file(path);  // opened once: a FIFO cannot be probed and then opened again
  if (file.peek(sizeof binary_magic) == std::string_view(binary_magic, sizeof binary_magic))
    return read_binary(file, options.preferences);
  return parse_text(file, [&](std::string_view text) { return parse_csv(text, path, options); });
}

}  // namespace sextant::datagen
