#include "datagen/binary.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "datagen/csv.hpp"
#include "datagen/skyline_generator.hpp"
#include "support/error_of.hpp"
#include "tests/support/test_directory.hpp"

namespace sextant::datagen {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using sextant::testing::error_of;

std::vector<float> random_floats(std::size_t count, std::uint32_t seed) {
  std::mt19937 bits(seed);
  std::vector<float> out = {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max()};
  while (out.size() < count) {
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(bits()));
    if (std::isfinite(v)) out.push_back(v);
  }
  out.resize(count);
  return out;
}

void expect_same_bits(const Dataset& a, const Dataset& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.dims(), b.dims());
  for (std::size_t k = 0; k < a.values().size(); ++k)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(a.values()[k]), std::bit_cast<std::uint32_t>(b.values()[k])) << k;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A well-formed header followed by `payload_floats` zero floats, with the fields given.
std::string raw_file(std::uint64_t n, std::uint32_t d, std::size_t payload_floats, std::uint32_t version = 1,
                     std::uint32_t reserved = 0) {
  std::string bytes(24 + payload_floats * 4, '\0');
  std::memcpy(bytes.data(), "SXTD", 4);
  std::memcpy(bytes.data() + 4, &version, 4);
  std::memcpy(bytes.data() + 8, &n, 8);
  std::memcpy(bytes.data() + 16, &d, 4);
  std::memcpy(bytes.data() + 20, &reserved, 4);
  return bytes;
}

class BinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sextant::testing::test_directory("sextant-binary");
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::string read_error(const std::string& file, ErrorKind kind = ErrorKind::bad_input) {
    return error_of([&] { read_binary(file); }, kind);
  }
  fs::path dir_;
};

TEST_F(BinaryTest, RoundTripIsBitExact) {
  const std::size_t n = 1500;
  const int d = 9;
  const Dataset original(n, d, random_floats(n * d, 3), {}, "random");
  write_binary(path("a.sxt"), original);
  EXPECT_EQ(fs::file_size(path("a.sxt")), 24 + n * d * 4);
  const Dataset back = read_binary(path("a.sxt"));
  expect_same_bits(original, back);
  EXPECT_EQ(back.origin(), path("a.sxt"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporaries left
}

TEST_F(BinaryTest, HeaderLayout) {
  const Dataset data(2, 3, std::vector<float>{1, 2, 3, 4, 5, 6});
  write_binary(path("h.sxt"), data);
  const std::string bytes = bytes_of(path("h.sxt"));
  ASSERT_EQ(bytes.size(), 24u + 6 * 4);
  EXPECT_EQ(bytes.substr(0, 4), "SXTD");
  std::uint32_t version = 0, d = 0, reserved = 7;
  std::uint64_t n = 0;
  std::memcpy(&version, bytes.data() + 4, 4);
  std::memcpy(&n, bytes.data() + 8, 8);
  std::memcpy(&d, bytes.data() + 16, 4);
  std::memcpy(&reserved, bytes.data() + 20, 4);
  EXPECT_EQ(version, 1u);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(d, 3u);
  EXPECT_EQ(reserved, 0u);
  float last = 0;
  std::memcpy(&last, bytes.data() + 24 + 5 * 4, 4);
  EXPECT_EQ(last, 6.0f);
}

TEST_F(BinaryTest, StoresInputValuesAndAppliesPreferencesAtLoad) {
  const std::vector<Preference> prefs = {Preference::max, Preference::min};
  const Dataset original(3, 2, std::vector<float>{1, 2, 3, 4, 5, 6}, prefs);
  write_binary(path("p.sxt"), original);
  expect_same_bits(original, read_binary(path("p.sxt"), prefs));
  const Dataset as_min = read_binary(path("p.sxt"));
  EXPECT_EQ(as_min(0, 0), 1.0f);  // the file holds the user's values, not the negated ones
  EXPECT_EQ(as_min(2, 0), 5.0f);

  // Larger than one write chunk and than a file read on every core (4 MiB), with max columns.
  const GeneratorSpec spec{Distribution::anticorrelated, 400000, 3, 5, 4};
  const Dataset generated = generate(spec);
  const Dataset mixed(generated.size(), 3, generated.values(),
                      {Preference::min, Preference::max, Preference::max});
  write_binary(path("m.sxt"), mixed);
  expect_same_bits(mixed, read_binary(path("m.sxt"), mixed.preferences()));
  expect_same_bits(generated, read_binary(path("m.sxt")));

  const std::string message =
      error_of([&] { read_binary(path("m.sxt"), {Preference::max}); }, ErrorKind::bad_argument);
  EXPECT_THAT(message, HasSubstr("--prefer = 'max'"));
  EXPECT_THAT(message, HasSubstr("1 entries for 3 columns"));
}

TEST_F(BinaryTest, EmptyDataset) {
  const Dataset empty(0, 4, {}, {}, "none");
  write_binary(path("e.sxt"), empty);
  EXPECT_EQ(fs::file_size(path("e.sxt")), 24u);
  const Dataset back = read_binary(path("e.sxt"));
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(back.dims(), 4);
}

TEST_F(BinaryTest, LooksBinaryAndReadDatasetDispatch) {
  const Dataset data(4, 2, std::vector<float>{0.5f, 1, 2, 3, 4, 5, 6, 7.25f});
  write_binary(path("d.sxt"), data);
  write_csv(path("d.csv"), data);
  write_bytes(path("short"), "SX");
  write_bytes(path("empty"), "");

  EXPECT_TRUE(looks_binary(path("d.sxt")));
  EXPECT_FALSE(looks_binary(path("d.csv")));
  EXPECT_FALSE(looks_binary(path("short")));
  EXPECT_FALSE(looks_binary(path("empty")));
  EXPECT_FALSE(looks_binary(path("missing")));
  EXPECT_FALSE(looks_binary(dir_.string()));

  expect_same_bits(data, read_dataset(path("d.sxt")));
  expect_same_bits(data, read_dataset(path("d.csv")));
  const CsvOptions max_both{CsvHeader::absent, {Preference::max, Preference::max}};
  EXPECT_EQ(read_dataset(path("d.sxt"), max_both)(3, 1), -7.25f);
  EXPECT_EQ(read_dataset(path("d.csv"), max_both)(3, 1), -7.25f);

  EXPECT_THAT(error_of([&] { read_dataset(path("missing")); }, ErrorKind::io), HasSubstr("cannot open"));
}

TEST_F(BinaryTest, TruncatedOrOversizedFile) {
  const Dataset data(10, 3, std::vector<float>(30, 0.25f));
  write_binary(path("t.sxt"), data);
  std::string bytes = bytes_of(path("t.sxt"));
  ASSERT_EQ(bytes.size(), 144u);

  write_bytes(path("cut.sxt"), bytes.substr(0, 143));
  std::string message = read_error(path("cut.sxt"));
  EXPECT_THAT(message, HasSubstr(path("cut.sxt") + ": truncated"));
  EXPECT_THAT(message, HasSubstr("143 bytes"));
  EXPECT_THAT(message, HasSubstr("n = 10, d = 3"));
  EXPECT_THAT(message, HasSubstr("needs 144"));

  write_bytes(path("long.sxt"), bytes + "x");
  message = read_error(path("long.sxt"));
  EXPECT_THAT(message, HasSubstr("trailing bytes"));
  EXPECT_THAT(message, HasSubstr("145 bytes"));

  write_bytes(path("header.sxt"), bytes.substr(0, 10));
  EXPECT_THAT(read_error(path("header.sxt")),
              HasSubstr("truncated: the file has 10 bytes, the header alone needs 24"));

  // n so large that n * d * 4 overflows must not wrap around to the file size.
  write_bytes(path("huge.sxt"), raw_file(std::uint64_t{1} << 62, 2, 0));
  EXPECT_THAT(read_error(path("huge.sxt")), HasSubstr("n = 4611686018427387904, d = 2"));
}

TEST_F(BinaryTest, BadHeaders) {
  write_bytes(path("magic.sxt"), "SXTE" + raw_file(1, 1, 1).substr(4));
  EXPECT_THAT(read_error(path("magic.sxt")), HasSubstr("does not start with \"SXTD\""));
  write_bytes(path("csv.sxt"), "1,2\n3,4\n");
  EXPECT_THAT(read_error(path("csv.sxt")), HasSubstr(path("csv.sxt") + ": not a Sextant binary dataset"));
  write_bytes(path("tiny.sxt"), "S");
  EXPECT_THAT(read_error(path("tiny.sxt")), HasSubstr("not a Sextant binary dataset"));

  write_bytes(path("v2.sxt"), raw_file(1, 1, 1, 2));
  EXPECT_THAT(read_error(path("v2.sxt")),
              HasSubstr("unsupported binary format version 2 (this build reads version 1)"));

  write_bytes(path("d0.sxt"), raw_file(1, 0, 0));
  EXPECT_THAT(read_error(path("d0.sxt")), HasSubstr("d = 0; supported: 1..32"));
  write_bytes(path("d33.sxt"), raw_file(1, 33, 33));
  EXPECT_THAT(read_error(path("d33.sxt")), HasSubstr("d = 33; supported: 1..32"));

  write_bytes(path("reserved.sxt"), raw_file(1, 1, 1, 1, 5));
  EXPECT_THAT(read_error(path("reserved.sxt")), HasSubstr("reserved header field is 5"));

  write_bytes(path("ok.sxt"), raw_file(2, 2, 4));
  EXPECT_EQ(read_binary(path("ok.sxt")).size(), 2u);
}

TEST_F(BinaryTest, NonFiniteValuesRejected) {
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::string bytes = raw_file(2, 3, 6);
    std::memcpy(bytes.data() + 24 + 4 * 4, &bad, 4);  // row 1, column 1
    write_bytes(path("nan.sxt"), bytes);
    const std::string message = read_error(path("nan.sxt"));
    EXPECT_THAT(message, HasSubstr(path("nan.sxt")));
    EXPECT_THAT(message, HasSubstr("row 1, column 1"));
  }
}

TEST_F(BinaryTest, IoErrors) {
  EXPECT_THAT(read_error(path("missing.sxt"), ErrorKind::io),
              HasSubstr(path("missing.sxt") + ": cannot open"));
  EXPECT_THAT(read_error(dir_.string(), ErrorKind::io), HasSubstr("directory"));
  const Dataset data(1, 1, std::vector<float>{1.0f});
  EXPECT_THAT(error_of([&] { write_binary(path("nope/x.sxt"), data); }, ErrorKind::io), HasSubstr("nope"));
  EXPECT_FALSE(fs::exists(path("nope/x.sxt")));
}

}  // namespace
}  // namespace sextant::datagen
