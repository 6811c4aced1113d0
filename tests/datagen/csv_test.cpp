#include "datagen/csv.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support/error_of.hpp"
#include "tests/support/test_directory.hpp"

namespace sextant::datagen {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using sextant::testing::error_of;

std::string parse_error(std::string_view text, const CsvOptions& options = {}) {
  return error_of([&] { parse_csv(text, "t.csv", options); }, ErrorKind::bad_input);
}

std::vector<float> values_of(const Dataset& data) {
  return {data.values().begin(), data.values().end()};
}

// Finite floats of every magnitude (random bit patterns), including -0, denormals, extremes.
std::vector<float> random_floats(std::size_t count, std::uint32_t seed) {
  std::mt19937 bits(seed);  // raw engine output is specified by the standard
  std::vector<float> out = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(),
                            0.1f,
                            1.0f / 3.0f};
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
    ASSERT_EQ(std::bit_cast<std::uint32_t>(a.values()[k]), std::bit_cast<std::uint32_t>(b.values()[k]))
        << "value " << k << ": " << a.values()[k] << " vs " << b.values()[k];
}

class CsvFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sextant::testing::test_directory("sextant-csv");
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST(Csv, RoundTripIsBitExact) {
  const std::size_t n = 2000;
  const int d = 7;
  const std::vector<float> values = random_floats(n * d, 1);
  const Dataset original(n, d, values, {}, "random");
  std::ostringstream out;
  write_csv(out, original);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<std::ptrdiff_t>(n));
  EXPECT_EQ(text.find(",\n"), std::string::npos);  // no trailing comma
  const Dataset back = parse_csv(text, "mem", {CsvHeader::absent, {}});
  expect_same_bits(original, back);
}

TEST(Csv, RoundTripWritesInputValuesOfMaxColumns) {
  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 4.0f, 0.0f, -7.0f};
  const std::vector<Preference> prefs = {Preference::min, Preference::max};
  const Dataset original(3, 2, values, prefs, "mixed");
  std::ostringstream out;
  write_csv(out, original);
  EXPECT_EQ(out.str(), "1.5,-2\n3.25,4\n0,-7\n");  // as given, not negated
  const Dataset back = parse_csv(out.str(), "mem", {CsvHeader::automatic, prefs});
  expect_same_bits(original, back);
  EXPECT_EQ(back(0, 1), 2.0f);  // stored negated for minimisation
  EXPECT_EQ(back.input_value(0, 1), -2.0f);
}

TEST(Csv, EmptyDatasetWritesNothing) {
  const Dataset empty(0, 3, {}, {}, "empty");
  std::ostringstream out;
  write_csv(out, empty);
  EXPECT_EQ(out.str(), "");
}

TEST(Csv, NbaFileLoads) {
  const std::string path = std::string(SEXTANT_SOURCE_DIR) + "/data/nba-8-17264.csv";
  const Dataset nba = read_csv(path);
  EXPECT_EQ(nba.size(), 17264u);
  EXPECT_EQ(nba.dims(), 8);
  EXPECT_EQ(nba.origin(), path);
  EXPECT_EQ(nba(0, 0), 0.8644941f);
  EXPECT_EQ(nba(0, 7), 0.9779589f);
  EXPECT_EQ(nba(17263, 0), 0.9021702f);
  EXPECT_EQ(nba(17263, 7), 0.9566225f);
}

TEST(Csv, HeaderDetection) {
  const Dataset with_header = parse_csv("a, b ,c\n1,2,3\n4,5,6\n", "t.csv");
  EXPECT_EQ(with_header.size(), 2u);
  EXPECT_EQ(with_header(0, 0), 1.0f);  // id 0 = first data row

  const Dataset without = parse_csv("1,2,3\n4,5,6\n", "t.csv");
  EXPECT_EQ(without.size(), 2u);
  EXPECT_EQ(without(0, 0), 1.0f);

  // One numeric cell makes a data line: then 'x' is bad data.
  EXPECT_THAT(parse_error("x,1\n2,3\n"), HasSubstr("t.csv:1:1: not a number: 'x'"));

  const Dataset forced = parse_csv("1,2\n3,4\n", "t.csv", {CsvHeader::present, {}});
  EXPECT_EQ(forced.size(), 1u);
  EXPECT_EQ(forced(0, 0), 3.0f);

  EXPECT_THAT(parse_error("a,b\n1,2\n", {CsvHeader::absent, {}}), HasSubstr("t.csv:1:1: not a number: 'a'"));
  EXPECT_THAT(parse_error("a,b,c\n1,2\n"),
              HasSubstr("t.csv:1: header has 3 names but the first data row (line 2) has 2"));
}

TEST(Csv, ToleratesTrailingCommaCrlfBlanksAndSpaces) {
  const Dataset data = parse_csv(" x ,y,\r\n 1.5 ,\t2,\r\n+3,-4e0 \r\n\r\n\n  \n", "t.csv");
  ASSERT_EQ(data.size(), 2u);
  ASSERT_EQ(data.dims(), 2);
  EXPECT_EQ(values_of(data), (std::vector<float>{1.5f, 2.0f, 3.0f, -4.0f}));

  const Dataset no_final_newline = parse_csv("1,2\n3,4", "t.csv");
  EXPECT_EQ(no_final_newline.size(), 2u);
  EXPECT_EQ(no_final_newline(1, 1), 4.0f);

  // Underflow rounds to zero rather than failing.
  const Dataset tiny = parse_csv("1e-50,-1e-999,1e-45\n", "t.csv");
  EXPECT_EQ(tiny(0, 0), 0.0f);
  EXPECT_EQ(tiny(0, 1), 0.0f);
  EXPECT_EQ(tiny(0, 2), std::numeric_limits<float>::denorm_min());
}

TEST(Csv, PreferencesNegateMaxColumns) {
  const Dataset data = parse_csv("1,2,3\n4,5,6\n", "t.csv",
                                 {CsvHeader::automatic, {Preference::max, Preference::min, Preference::max}});
  EXPECT_EQ(values_of(data), (std::vector<float>{-1, 2, -3, -4, 5, -6}));
  EXPECT_EQ(data.input_value(1, 2), 6.0f);
  EXPECT_EQ(data.preferences()[0], Preference::max);

  const std::string message = error_of(
      [] {
        parse_csv("1,2,3\n", "t.csv", {CsvHeader::automatic, {Preference::max, Preference::min}});
      },
      ErrorKind::bad_argument);
  EXPECT_THAT(message, HasSubstr("--prefer = 'max,min'"));
  EXPECT_THAT(message, HasSubstr("2 entries for 3 columns"));
}

TEST(Csv, EmptyInputs) {
  EXPECT_THAT(parse_error(""), HasSubstr("t.csv: empty file"));
  EXPECT_THAT(parse_error("\n\r\n  \n"), HasSubstr("t.csv: empty file"));
  EXPECT_THAT(parse_error("a,b\n\n"), HasSubstr("t.csv:1: a header line but no data rows"));
  EXPECT_THAT(parse_error("1,2\n", {CsvHeader::present, {}}),
              HasSubstr("t.csv:1: a header line but no data rows"));
}

TEST(Csv, RaggedRows) {
  EXPECT_THAT(parse_error("1,2,3\n4,5\n"),
              HasSubstr("t.csv:2:3: row has 2 values, expected 3 (from line 1)"));
  EXPECT_THAT(parse_error("1,2\n3,4,5\n"),
              HasSubstr("t.csv:2:3: row has 3 values, expected 2 (from line 1)"));
  EXPECT_THAT(parse_error("a,b\n1,2\n3,4\n5\n"),
              HasSubstr("t.csv:4:2: row has 1 value, expected 2 (from line 2)"));
  // The tolerated trailing comma does not count; a second one is an empty cell.
  EXPECT_THAT(parse_error("1,2,\n3,4,5,\n"), HasSubstr("t.csv:2:3: row has 3 values, expected 2"));
  EXPECT_THAT(parse_error("1,2,,\n"), HasSubstr("t.csv:1:3: empty cell"));
}

TEST(Csv, BadCells) {
  EXPECT_THAT(parse_error("1,2\n3,abc\n"), HasSubstr("t.csv:2:2: not a number: 'abc'"));
  EXPECT_THAT(parse_error("1,2\n3,4x\n"), HasSubstr("t.csv:2:2: not a number: '4x'"));
  EXPECT_THAT(parse_error("1,2\n3, 4 5\n"), HasSubstr("t.csv:2:2: not a number: '4 5'"));
  EXPECT_THAT(parse_error("1,2\n++3,4\n"), HasSubstr("t.csv:2:1: not a number: '++3'"));
  EXPECT_THAT(parse_error("1,2\n0x10,4\n"), HasSubstr("t.csv:2:1: not a number: '0x10'"));
  EXPECT_THAT(parse_error("1,2\n\"3\",4\n"), HasSubstr("t.csv:2:1: not a number: '\"3\"'"));
  EXPECT_THAT(parse_error("1,,3\n"), HasSubstr("t.csv:1:2: empty cell"));
  EXPECT_THAT(parse_error("1,2\n,\n"), HasSubstr("t.csv:2:1: empty cell"));
  EXPECT_THAT(parse_error("1,2\n3;4\n"), HasSubstr("t.csv:2:1: not a number: '3;4'"));
}

TEST(Csv, NonFiniteCells) {
  EXPECT_THAT(parse_error("1,nan\n"), HasSubstr("t.csv:1:2: value 'nan' is NaN"));
  EXPECT_THAT(parse_error("1,2\n3,NaN\n"), HasSubstr("t.csv:2:2: value 'NaN' is NaN"));
  EXPECT_THAT(parse_error("1,2\ninf,4\n"), HasSubstr("t.csv:2:1: value 'inf' is infinite"));
  EXPECT_THAT(parse_error("1,2\n3,-infinity\n"), HasSubstr("t.csv:2:2: value '-infinity' is infinite"));
  EXPECT_THAT(parse_error("1,2\n3,1e999\n"), HasSubstr("t.csv:2:2: value '1e999' is infinite"));
  EXPECT_THAT(parse_error("1,2\n3,-1e39\n"), HasSubstr("t.csv:2:2: value '-1e39' is infinite"));
  EXPECT_THAT(parse_error("a,b\n1,2\n3,4e38\n"), HasSubstr("t.csv:3:2: value '4e38' is infinite"));
}

TEST(Csv, BlankLineInTheMiddle) {
  EXPECT_THAT(parse_error("1,2\n\n3,4\n"), HasSubstr("t.csv:2: blank line"));
  EXPECT_THAT(parse_error("1,2\r\n \t\r\n3,4\r\n"), HasSubstr("t.csv:2: blank line"));
  EXPECT_THAT(parse_error("\n1,2\n"), HasSubstr("t.csv:1: blank line"));
}

TEST(Csv, TooManyColumns) {
  std::string row32, row33;
  for (int j = 0; j < 33; ++j) {
    if (j < 32) row32 += std::to_string(j) + ",";
    row33 += std::to_string(j) + ",";
  }
  EXPECT_EQ(parse_csv(row32 + "\n", "t.csv").dims(), 32);
  EXPECT_THAT(parse_error(row33 + "\n"), HasSubstr("t.csv:1:33: row has 33 values; 32 columns at most"));
  EXPECT_THAT(parse_error("a\n" + row33 + "\n", {CsvHeader::present, {}}), HasSubstr("t.csv:2:33:"));
}

TEST_F(CsvFileTest, WriteThenReadFile) {
  const std::vector<float> values = random_floats(3000, 2);
  const Dataset original(1000, 3, values, {Preference::max, Preference::min, Preference::min}, "random");
  write_csv(path("out.csv"), original);
  expect_same_bits(
      original,
      read_csv(path("out.csv"), {CsvHeader::absent, {Preference::max, Preference::min, Preference::min}}));
  // Nothing left behind besides the output.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(CsvFileTest, ErrorsNameTheFile) {
  std::ofstream(path("bad.csv")) << "1,2\n3,4\n5,oops\n";
  EXPECT_THAT(error_of([&] { read_csv(path("bad.csv")); }, ErrorKind::bad_input),
              HasSubstr(path("bad.csv") + ":3:2: not a number: 'oops'"));
  EXPECT_THAT(error_of([&] { read_csv(path("missing.csv")); }, ErrorKind::io),
              HasSubstr(path("missing.csv") + ": cannot open"));
  EXPECT_THAT(error_of([&] { read_csv(dir_.string()); }, ErrorKind::io), HasSubstr("directory"));
}

TEST_F(CsvFileTest, FailedWriteLeavesNothing) {
  const Dataset data(1, 1, std::vector<float>{1.0f});
  const std::string target = path("no-such-dir/out.csv");
  EXPECT_THAT(error_of([&] { write_csv(target, data); }, ErrorKind::io), HasSubstr("no-such-dir"));
  EXPECT_FALSE(fs::exists(target));
}

// The rows cut into chunks at line ends and parsed in parallel give the same dataset and the same
// first error as one pass, whatever the chunk count: random rows with CRLF, trailing commas,
// blanks, '+' signs, a header, with and without a final newline; errors placed in the first and
// last lines of chunks (a bad cell, a ragged row, a blank line between rows).
TEST(CsvChunks, SameDatasetAndSameFirstErrorForEveryChunkCount) {
  std::mt19937 rng(7);
  for (int round = 0; round < 30; ++round) {
    const int d = 1 + static_cast<int>(rng() % 5);
    const std::size_t rows = 1 + rng() % 300;
    std::string text;
    if (round % 3 == 0) {  // a header of d names
      for (int j = 0; j < d; ++j) text += (j ? ",c" : "c") + std::to_string(j);
      text += "\n";
    }
    for (std::size_t i = 0; i < rows; ++i) {
      for (int j = 0; j < d; ++j) {
        if (j) text += rng() % 5 == 0 ? " , " : ",";
        const int v = static_cast<int>(rng() % 2001) - 1000;
        if (v >= 0 && rng() % 7 == 0) text += '+';
        text += std::to_string(v) + (rng() % 3 == 0 ? ".25" : "");
      }
      if (rng() % 6 == 0) text += ',';
      text += rng() % 4 == 0 ? "\r\n" : "\n";
    }
    if (round % 2 == 1) text.pop_back();  // no final newline (or a lone '\r')
    const Dataset one = detail::parse_csv_in_chunks(text, "t.csv", {}, 1);
    ASSERT_EQ(one.size(), rows) << round;
    for (const int chunks : {2, 3, 64}) {
      const Dataset many = detail::parse_csv_in_chunks(text, "t.csv", {}, chunks);
      ASSERT_EQ(many.size(), one.size()) << round << " " << chunks;
      ASSERT_EQ(many.dims(), one.dims());
      ASSERT_EQ(values_of(many), values_of(one)) << round << " " << chunks;
    }
    // Max columns are negated as each chunk parses them.
    std::vector<Preference> preferences;
    for (int j = 0; j < d; ++j) preferences.push_back(j % 2 ? Preference::max : Preference::min);
    const Dataset maxed = detail::parse_csv_in_chunks(text, "t.csv", {CsvHeader::automatic, preferences}, 3);
    ASSERT_EQ(maxed.size(), one.size());
    for (std::size_t i = 0; i < rows; ++i)
      for (int j = 0; j < d; ++j) {
        const auto id = static_cast<PointId>(i);
        ASSERT_EQ(maxed(id, j), j % 2 ? -one(id, j) : one(id, j)) << round;
        ASSERT_EQ(maxed.input_value(id, j), one(id, j)) << round;
      }
    // One error on a random line (after the header): the same message for every chunk count.
    std::vector<std::size_t> starts = {0};
    for (std::size_t at = text.find('\n'); at != std::string::npos && at + 1 < text.size();
         at = text.find('\n', at + 1))
      starts.push_back(at + 1);
    const std::size_t first_row_line = round % 3 == 0 ? 1 : 0;
    if (starts.size() <= first_row_line + 1) continue;
    const std::size_t line = first_row_line + 1 + rng() % (starts.size() - first_row_line - 1);
    for (const std::string& bad : {std::string("x,"), std::string("1,2,3,4,5,6,7\n"), std::string("\n")}) {
      std::string broken = text;
      broken.insert(starts[line], bad);
      const std::string want =
          error_of([&] { detail::parse_csv_in_chunks(broken, "t.csv", {}, 1); }, ErrorKind::bad_input);
      ASSERT_THAT(want, HasSubstr("t.csv:" + std::to_string(line + 1))) << broken.substr(0, 80);
      for (const int chunks : {2, 3, 64})
        ASSERT_EQ(
            error_of([&] { detail::parse_csv_in_chunks(broken, "t.csv", {}, chunks); }, ErrorKind::bad_input),
            want)
            << round << " " << chunks;
    }
  }
}

}  // namespace
}  // namespace sextant::datagen
