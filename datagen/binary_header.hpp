// The one reader of Sextant's binary file headers (internal): the binary dataset
// (datagen/binary.hpp, "SXTD") and the column file (datagen/column_file.hpp, "SXTC") share
// their layout rules: a 4-byte magic, a uint32 version at offset 4, reserved fields that must be
// 0, then a payload whose size the header fixes exactly. This reader checks what they share,
// with the same messages for both, and reads the payload (one read from a regular file, growing
// chunks from a pipe, so a corrupt header runs out of data before much is allocated).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "datagen/input_file.hpp"

namespace sextant::datagen::detail {

static_assert(std::endian::native == std::endian::little, "Sextant's binary formats are little endian");

template <class T>
T load_le(const char* bytes) noexcept {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

template <class T>
void store_le(char* bytes, T value) noexcept {
  std::memcpy(bytes, &value, sizeof value);
}

struct BinaryFormat {
  std::string_view magic;     // 4 bytes at offset 0
  std::string_view what;      // "binary dataset": "not a Sextant binary dataset (...)"
  std::string_view name;      // "binary": "unsupported binary format version ..."
  std::uint32_t version = 1;  // the one version this build reads, at offset 4
  std::size_t header_bytes = 0;
};

// True iff `path` is not a directory, can be opened and starts with `magic`.
bool starts_with_magic(const std::string& path, std::string_view magic);

class BinaryReader {
 public:
  static constexpr std::size_t max_header_bytes = 64;

  // Reads the header from `file` (opened at its start) and checks the magic, that the header is
  // complete, and the version. Throws Error (bad_input) naming the file.
  BinaryReader(InputFile& file, const BinaryFormat& format);

  // The little-endian field at `offset` of the header.
  template <class T>
  T field(std::size_t offset) const noexcept {
    return load_le<T>(header_ + offset);
  }
  // Throws unless the uint32 at `offset` is 0.
  void check_reserved(std::size_t offset) const;
  // An Error (bad_input) naming the file.
  [[noreturn]] void fail(const std::string& what) const;

  // Fixes the payload: `units` units of `unit_bytes` bytes each, `shape` describing them for
  // messages ("n = 3, d = 2"). Throws when no file can be that large, and when a regular file's
  // size differs from the header's (before anything is allocated).
  void expect_payload(std::uint64_t units, std::uint64_t unit_bytes, std::string shape);

  // Reads the payload fixed by expect_payload into `values` (sized to fit it).
  template <class T>
  void read_payload(std::vector<T>& values) {
    const auto count = static_cast<std::size_t>(payload_bytes_ / sizeof(T));
    constexpr std::size_t first_chunk = (std::size_t{1} << 16) / sizeof(T);
    values.clear();
    while (values.size() < count) {
      const std::size_t old = values.size();
      const std::size_t take = file_.size() ? count : std::min(std::max(first_chunk, old), count - old);
      values.resize(old + take);
      const std::size_t got = file_.read(values.data() + old, take * sizeof(T));
      if (got != take * sizeof(T)) short_read(old * sizeof(T) + got);
    }
  }
  // A regular file's payload (fixed by expect_payload) into `out`, which holds that many bytes
  // and need not be zeroed, on every core (InputFile::read_on_every_core).
  void read_payload_of_file(void* out) {
    const auto bytes = static_cast<std::size_t>(payload_bytes_);
    const std::size_t got = file_.read_on_every_core(out, bytes);
    if (got != bytes) short_read(got);
  }
  // Throws when anything follows the payload (counted up to 1 MiB).
  void check_nothing_follows();

 private:
  [[noreturn]] void short_read(std::uint64_t payload_read) const;
  Error size_mismatch(std::uint64_t file_bytes, bool at_least) const;

  InputFile& file_;
  const BinaryFormat& format_;
  char header_[max_header_bytes] = {};
  std::uint64_t payload_bytes_ = 0;
  std::string shape_;
};

}  // namespace sextant::datagen::detail
