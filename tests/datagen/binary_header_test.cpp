// The one reader of Sextant's binary headers, on a made-up 16-byte format: magic, version,
// reserved field, payload size against the file length (regular file) and while reading (pipe).
#include "datagen/binary_header.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/error_of.hpp"
#include "support/fifo_writer.hpp"
#include "tests/support/test_directory.hpp"

namespace sextant::datagen::detail {
namespace {

namespace fs = std::filesystem;
using sextant::testing::error_of;
using sextant::testing::FifoWriter;
using ::testing::HasSubstr;

// "TEST", uint32 version 3, uint32 reserved, uint32 n; then n uint16 values.
constexpr BinaryFormat test_format{"TEST", "test file", "test", 3, 16};

std::string header(std::uint32_t version, std::uint32_t reserved, std::uint32_t n) {
  std::string bytes(16, '\0');
  bytes.replace(0, 4, "TEST");
  store_le(bytes.data() + 4, version);
  store_le(bytes.data() + 8, reserved);
  store_le(bytes.data() + 12, n);
  return bytes;
}

std::vector<std::uint16_t> read_test(InputFile& file) {
  BinaryReader reader(file, test_format);
  reader.check_reserved(8);
  const auto n = reader.field<std::uint32_t>(12);
  reader.expect_payload(n, 2, "n = " + std::to_string(n));
  std::vector<std::uint16_t> values;
  reader.read_payload(values);
  reader.check_nothing_follows();
  return values;
}

class BinaryHeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sextant::testing::test_directory("sextant-binary-header");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& bytes) const {
    const std::string path = (dir_ / "f.test").string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string error_reading(const std::string& bytes) const {
    const std::string path = write(bytes);
    return error_of(
        [&] {
          InputFile file(path);
          (void)read_test(file);
        },
        ErrorKind::bad_input);
  }

  fs::path dir_;
};

TEST_F(BinaryHeaderTest, ReadsFieldsAndPayload) {
  InputFile file(write(header(3, 0, 2) + std::string("\x01\x00\x02\x01", 4)));
  EXPECT_EQ(read_test(file), (std::vector<std::uint16_t>{1, 0x0102}));
}

TEST_F(BinaryHeaderTest, SharedChecksHaveOneMessageEach) {
  EXPECT_THAT(error_reading("TES"), HasSubstr("not a Sextant test file (it does not start with \"TEST\")"));
  EXPECT_THAT(error_reading("XEST" + header(3, 0, 0).substr(4)), HasSubstr("not a Sextant test file"));
  EXPECT_THAT(error_reading(header(3, 0, 0).substr(0, 10)),
              HasSubstr("truncated: the file has 10 bytes, the header alone needs 16"));
  EXPECT_THAT(error_reading(header(4, 0, 0)),
              HasSubstr("unsupported test format version 4 (this build reads version 3)"));
  EXPECT_THAT(error_reading(header(3, 9, 0)), HasSubstr("reserved header field is 9, expected 0"));
  EXPECT_THAT(error_reading(header(3, 0, 2) + "abc"),
              HasSubstr("truncated: the file has 19 bytes, the header (n = 2) needs 20"));
  EXPECT_THAT(error_reading(header(3, 0, 2) + "abcde"),
              HasSubstr("trailing bytes: the file has 21 bytes, the header (n = 2) needs 20"));
}

TEST_F(BinaryHeaderTest, APipeIsCheckedWhileItIsRead) {
  int pipes = 0;
  const auto through_pipe = [&](const std::string& bytes) {
    const std::string fifo = (dir_ / ("pipe" + std::to_string(++pipes))).string();
    FifoWriter writer(fifo, bytes);
    return error_of(
        [&] {
          InputFile file(fifo);
          (void)read_test(file);
        },
        ErrorKind::bad_input);
  };
  EXPECT_THAT(through_pipe(header(3, 0, 2) + "abc"),
              HasSubstr("truncated: the file has 19 bytes, the header (n = 2) needs 20"));
  EXPECT_THAT(through_pipe(header(3, 0, 2) + "abcdef"),
              HasSubstr("trailing bytes: the file has 22 bytes, the header (n = 2) needs 20"));
  // A header that promises far more than the pipe holds fails when the data runs out.
  EXPECT_THAT(through_pipe(header(3, 0, 0xFFFFFFFFu) + "ab"), HasSubstr("truncated: the file has 18 bytes"));
}

TEST_F(BinaryHeaderTest, StartsWithMagic) {
  const std::string path = write(header(3, 0, 0));
  EXPECT_TRUE(starts_with_magic(path, "TEST"));
  EXPECT_FALSE(starts_with_magic(path, "SXTD"));
  EXPECT_FALSE(starts_with_magic(dir_.string(), "TEST"));                // a directory
  EXPECT_FALSE(starts_with_magic((dir_ / "missing").string(), "TEST"));  // no such file
}

}  // namespace
}  // namespace sextant::datagen::detail
