// Fuzz target: the binary column file reader (datagen/column_file.hpp), from a regular file and
// from a pipe.
#include "datagen/column_file.hpp"
#include "datagen/input_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sextant;
  fuzz::Bytes bytes(data, size);
  const std::uint8_t mode = bytes.take();
  const fuzz::BytesAsFile file(bytes.rest(), (mode & 1) != 0);
  fuzz::expect_only_sextant_errors([&] {
    datagen::InputFile input(file.path());
    const datagen::ColumnData column = datagen::read_column_file(input);
    if (datagen::size_of(column) > bytes.rest().size()) std::abort();
  });
  return 0;
}
