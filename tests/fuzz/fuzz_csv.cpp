// Fuzz target: the dataset CSV parser (datagen/csv.hpp), every header mode, with and without
// preferences, from memory and through the file reader (BOM, line limit, pipes).
#include "datagen/binary.hpp"
#include "datagen/csv.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sextant;
  fuzz::Bytes bytes(data, size);
  const std::uint8_t mode = bytes.take();
  datagen::CsvOptions options;
  options.header = static_cast<datagen::CsvHeader>(mode % 3);
  if (mode & 4) options.preferences = {Preference::max, Preference::min};
  const std::string_view text = bytes.rest();
  fuzz::expect_only_sextant_errors([&] {
    const Dataset parsed = datagen::parse_csv(text, "fuzz.csv", options);
    if (parsed.size() * static_cast<std::size_t>(parsed.dims()) != parsed.values().size()) std::abort();
  });
  if (mode & 8) {
    const fuzz::BytesAsFile file(text, (mode & 16) != 0);
    fuzz::expect_only_sextant_errors([&] { (void)datagen::read_dataset(file.path(), options); });
  }
  return 0;
}
