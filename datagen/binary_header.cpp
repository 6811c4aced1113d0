#include "datagen/binary_header.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

namespace sextant::datagen::detail {

bool starts_with_magic(const std::string& path, std::string_view magic) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(magic.size(), '\0');
  return in.read(head.data(), static_cast<std::streamsize>(head.size())) && head == magic;
}

BinaryReader::BinaryReader(InputFile& file, const BinaryFormat& format) : file_(file), format_(format) {
  if (format.header_bytes > max_header_bytes || format.magic.size() > format.header_bytes ||
      format.header_bytes < 8)
    throw Error::internal("BinaryReader: bad header layout");
  const std::size_t got = file_.read(header_, format.header_bytes);
  if (got < format.magic.size() || std::string_view(header_, format.magic.size()) != format.magic)
    fail("not a Sextant " + std::string(format.what) + " (it does not start with \"" +
         std::string(format.magic) + "\")");
  if (got < format.header_bytes)
    fail("truncated: the file has " + std::to_string(got) + " bytes, the header alone needs " +
         std::to_string(format.header_bytes));
  const auto version = field<std::uint32_t>(4);
  if (version != format.version)
    fail("unsupported " + std::string(format.name) + " format version " + std::to_string(version) +
         " (this build reads version " + std::to_string(format.version) + ")");
}

void BinaryReader::check_reserved(std::size_t offset) const {
  if (const auto reserved = field<std::uint32_t>(offset); reserved != 0)
    fail("reserved header field is " + std::to_string(reserved) + ", expected 0 (corrupt file?)");
}

void BinaryReader::fail(const std::string& what) const {
  throw Error::in_file(file_.path(), 0, 0, what);
}

void BinaryReader::expect_payload(std::uint64_t units, std::uint64_t unit_bytes, std::string shape) {
  shape_ = std::move(shape);
  if (unit_bytes == 0 ||
      units > (std::numeric_limits<std::uint64_t>::max() - format_.header_bytes) / unit_bytes)
    fail("header says " + shape_ + ": larger than any file (corrupt header?)");
  payload_bytes_ = units * unit_bytes;
  // A regular file's size is checked before anything is allocated; a pipe's as it is read.
  if (file_.size() && *file_.size() != format_.header_bytes + payload_bytes_)
    throw size_mismatch(*file_.size(), false);
  if (payload_bytes_ > std::numeric_limits<std::size_t>::max())
    fail("header says " + shape_ + ": too large for this machine");
}

void BinaryReader::short_read(std::uint64_t payload_read) const {
  if (file_.size()) throw Error::io(file_.path(), "read failed: the file shrank while it was read");
  throw size_mismatch(format_.header_bytes + payload_read, false);
}

void BinaryReader::check_nothing_follows() {
  constexpr std::uint64_t counted = std::uint64_t{1} << 20;
  if (const std::uint64_t extra = file_.count_rest(counted); extra != 0)
    throw size_mismatch(format_.header_bytes + payload_bytes_ + std::min(extra, counted), extra > counted);
}

Error BinaryReader::size_mismatch(std::uint64_t file_bytes, bool at_least) const {
  const std::uint64_t expected = format_.header_bytes + payload_bytes_;
  return Error::in_file(file_.path(), 0, 0,
                        std::string(file_bytes < expected ? "truncated" : "trailing bytes") +
                            ": the file has " + (at_least ? "more than " : "") + std::to_string(file_bytes) +
                            " bytes, the header (" + shape_ + ") needs " + std::to_string(expected));
}

}  // namespace sextant::datagen::detail
