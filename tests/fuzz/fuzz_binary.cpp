// Fuzz target: the binary dataset reader (datagen/binary.hpp), from a regular file and from a
// pipe (size unknown: truncation and trailing bytes found while reading).
#include "datagen/binary.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sextant;
  fuzz::Bytes bytes(data, size);
  const std::uint8_t mode = bytes.take();
  const fuzz::BytesAsFile file(bytes.rest(), (mode & 1) != 0);
  std::vector<Preference> preferences;
  if (mode & 2) preferences = {Preference::min, Preference::max, Preference::min};
  fuzz::expect_only_sextant_errors([&] {
    const Dataset parsed =
        (mode & 4) ? datagen::read_dataset(file.path(), {datagen::CsvHeader::automatic, preferences})
                   : datagen::read_binary(file.path(), preferences);
    if (parsed.size() * static_cast<std::size_t>(parsed.dims()) != parsed.values().size()) std::abort();
  });
  return 0;
}
