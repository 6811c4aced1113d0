// Fuzz target: the stream CSV parser (datagen/stream_csv.hpp) with each value type, automatic
// typing and the values-only projection, from memory and through the file reader.
#include "datagen/stream_csv.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sextant;
  fuzz::Bytes bytes(data, size);
  const std::uint8_t mode = bytes.take();
  datagen::StreamCsvOptions options;
  if (const int type = mode % 5; type != 0) options.value_type = static_cast<datagen::ColumnType>(type);
  options.values_only = (mode & 8) != 0;
  const std::string_view text = bytes.rest();
  fuzz::expect_only_sextant_errors([&] {
    const datagen::StreamCsv csv = datagen::parse_stream_csv(text, "fuzz.csv", options);
    if (!options.values_only && (csv.keys.size() != csv.size() || csv.timestamps.size() != csv.size() ||
                                 csv.watermarks.size() != csv.size()))
      std::abort();
  });
  if (mode & 16) {
    const fuzz::BytesAsFile file(text, (mode & 32) != 0);
    fuzz::expect_only_sextant_errors([&] { (void)datagen::read_stream_csv(file.path(), options); });
  }
  return 0;
}
