// The stream CSV reader and writer: columns, value typing, tolerated layout, round trips, and
// every error naming file, line and column.
#include "datagen/stream_csv.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sextant::datagen {
namespace {

using ::testing::HasSubstr;

std::string parse_error(std::string_view text, const StreamCsvOptions& options = {}) {
  try {
    parse_stream_csv(text, "t.csv", options);
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::bad_input)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error for:\n" << text;
  return {};
}

template <class T>
const std::vector<T>& values(const StreamCsv& csv) {
  return std::get<std::vector<T>>(csv.values);
}

TEST(StreamCsv, ColumnsWithHeaderCrlfBlanksAndPlus) {
  const StreamCsv csv = parse_stream_csv(
      "key,ts,value,wm\r\n 3 , 10,-5,  7\r\n+4294967295,0,+12,-100\r\n0,9223372036854775807,0,0\n\n \n",
      "t.csv");
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv.keys, (std::vector<window::StreamKey>{3, 4294967295u, 0}));
  EXPECT_EQ(csv.timestamps, (std::vector<std::int64_t>{10, 0, std::numeric_limits<std::int64_t>::max()}));
  EXPECT_EQ(values<std::int64_t>(csv), (std::vector<std::int64_t>{-5, 12, 0}));
  EXPECT_EQ(csv.watermarks, (std::vector<std::int64_t>{7, -100, 0}));
  EXPECT_TRUE(csv.several_keys);
}

TEST(StreamCsv, AnEmptyWatermarkCellIsNoWatermark) {
  const StreamCsv csv = parse_stream_csv("0,1,2,\n0,2,3,5\n", "t.csv");
  EXPECT_EQ(csv.watermarks, (std::vector<std::int64_t>{window::no_watermark, 5}));
  std::ostringstream text;
  write_stream_csv(text, csv);
  EXPECT_EQ(text.str(), "key,ts,value,wm\n0,1,2,\n0,2,3,5\n");
}

TEST(StreamCsv, WithoutHeaderTheFirstLineIsData) {
  const StreamCsv csv = parse_stream_csv("1,2,3,4\n1,5,6,7", "t.csv");
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(values<std::int64_t>(csv), (std::vector<std::int64_t>{3, 6}));
  EXPECT_FALSE(csv.several_keys);
}

TEST(StreamCsv, OneNonIntegerValueMakesTheColumnDouble) {
  const StreamCsv csv = parse_stream_csv("0,0,1,0\n0,1,-2,0\n0,2,0.5,0\n0,3,7,0\n0,4,1e3,0\n", "t.csv");
  EXPECT_EQ(values<double>(csv), (std::vector<double>{1, -2, 0.5, 7, 1000}));
  // An integer beyond int64 is still a number: the column becomes double.
  EXPECT_EQ(values<double>(parse_stream_csv("0,0,99999999999999999999,0\n", "t.csv")),
            (std::vector<double>{1e20}));
}

TEST(StreamCsv, EmptyAndHeaderOnlyStreamsHaveNoRows) {
  for (const char* text : {"", "\n\n", "key,ts,value,wm\n", "key,ts,value,wm"}) {
    const StreamCsv csv = parse_stream_csv(text, "t.csv");
    EXPECT_EQ(csv.size(), 0u) << text;
    EXPECT_TRUE(csv.keys.empty());
  }
}

TEST(StreamCsv, RequestedValueTypeAndValuesOnly) {
  const std::string text = "0,0,1,0\n1,1,-2,0\n";
  StreamCsvOptions options;
  options.value_type = ColumnType::int32;
  options.values_only = true;
  const StreamCsv csv = parse_stream_csv(text, "t.csv", options);
  EXPECT_EQ(values<std::int32_t>(csv), (std::vector<std::int32_t>{1, -2}));
  EXPECT_TRUE(csv.keys.empty());
  EXPECT_TRUE(csv.timestamps.empty());
  EXPECT_TRUE(csv.watermarks.empty());
  EXPECT_TRUE(csv.several_keys);
  options.value_type = ColumnType::float32;
  EXPECT_EQ(values<float>(parse_stream_csv("0,0,0.1,0\n", "t.csv", options)), (std::vector<float>{0.1f}));
  // Values that underflow round towards zero, as everywhere else.
  EXPECT_EQ(values<float>(parse_stream_csv("0,0,1e-60,0\n", "t.csv", options)), (std::vector<float>{0.0f}));
}

TEST(StreamCsv, RoundTripIsExact) {
  StreamCsv in;
  in.keys = {0, 7, 4294967295u, 7};
  in.timestamps = {0, 1, std::numeric_limits<std::int64_t>::max(), 3};
  in.watermarks = {std::numeric_limits<std::int64_t>::min() + 1, -1, 0,
                   std::numeric_limits<std::int64_t>::max()};
  in.values = std::vector<double>{0.1, -1e-300, 1.0 / 3.0, std::numeric_limits<double>::max()};
  std::ostringstream text;
  write_stream_csv(text, in);
  EXPECT_TRUE(text.str().starts_with("key,ts,value,wm\n0,0,0.1,")) << text.str();
  const StreamCsv out = parse_stream_csv(text.str(), "t.csv");
  EXPECT_EQ(out.keys, in.keys);
  EXPECT_EQ(out.timestamps, in.timestamps);
  EXPECT_EQ(out.watermarks, in.watermarks);
  const auto& a = values<double>(in);
  const auto& b = values<double>(out);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[i]), std::bit_cast<std::uint64_t>(b[i]));

  in.values = std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), 0, 5, -5};
  std::ostringstream ints;
  write_stream_csv(ints, in);
  EXPECT_EQ(values<std::int64_t>(parse_stream_csv(ints.str(), "t.csv")), values<std::int64_t>(in));
}

struct BadCase {
  const char* text;
  const char* where;
  const char* what;
};

TEST(StreamCsv, ErrorsNameFileLineAndColumn) {
  const BadCase cases[] = {
      {"0,1,2\n", "t.csv:1: ", "expected 4 cells (key,ts,value,wm), found 3"},
      {"0,1,2,3\n0,1,2,3,4\n", "t.csv:2: ", "found 5"},
      {"key,ts,value\n0,1,2,3\n", "t.csv:1: ", "expected 4 cells"},
      {"0,1,2,3\nx,1,2,3\n", "t.csv:2:1: ", "key 'x' is not an unsigned integer"},
      {"0,1,2,3\n-1,1,2,3\n", "t.csv:2:1: ", "key '-1' is out of range (valid: 0 .. 4294967295)"},
      {"4294967296,1,2,3\n", "t.csv:1:1: ", "out of range"},
      {"1.5,1,2,3\n", "t.csv:1:1: ", "not an unsigned integer"},
      {"0,1,2,3\n0,-4,2,3\n", "t.csv:2:2: ", "negative timestamp -4 (timestamps are >= 0)"},
      {"0,1.5,2,3\n", "t.csv:1:2: ", "timestamp '1.5' is not an integer"},
      {"0,,2,3\n", "t.csv:1:2: ", "timestamp '' is not an integer"},
      {"0,9223372036854775808,2,3\n", "t.csv:1:2: ", "outside the signed 64-bit range"},
      {"0,1,abc,3\n", "t.csv:1:3: ", "value 'abc' is not a number"},
      {"0,1,2,3\n0,1,nan,3\n", "t.csv:2:3: ", "NaN or infinite"},
      {"0,1,-inf,3\n", "t.csv:1:3: ", "NaN or infinite"},
      {"0,1,1e999,3\n", "t.csv:1:3: ", "outside the double range"},
      {"0,1,,3\n", "t.csv:1:3: ", "value '' is not a number"},
      {"0,1,2,x\n", "t.csv:1:4: ", "watermark 'x' is not an integer"},
      {"0,1,2,3\n\n0,1,2,3\n", "t.csv:2: ", "blank line inside the data"},
      {"0,1,2,3\n0,1,2,3\n\r\n \n0,1,2,3\n", "t.csv:3: ", "blank line"},
  };
  for (const auto& c : cases) {
    const std::string e = parse_error(c.text);
    EXPECT_THAT(e, HasSubstr(c.where)) << c.text;
    EXPECT_THAT(e, HasSubstr(c.what)) << c.text;
  }
}

TEST(StreamCsv, TypedValueErrors) {
  StreamCsvOptions options;
  options.value_type = ColumnType::int32;
  EXPECT_THAT(parse_error("0,1,3000000000,0\n", options),
              HasSubstr("t.csv:1:3: value '3000000000' is outside the int32 range"));
  EXPECT_THAT(parse_error("0,1,2,0\n0,1,1.5,0\n", options),
              HasSubstr("t.csv:2:3: value '1.5' is not an int32"));
  options.value_type = ColumnType::float32;
  EXPECT_THAT(parse_error("0,1,1e39,0\n", options),
              HasSubstr("t.csv:1:3: value '1e39' is outside the float range"));
  EXPECT_THAT(parse_error("0,1,nan,0\n", options), HasSubstr("NaN or infinite"));
  // values_only still checks every cell.
  options.values_only = true;
  EXPECT_THAT(parse_error("0,-1,2,0\n", options), HasSubstr("t.csv:1:2: negative timestamp"));
}

TEST(StreamCsv, ReadsFilesAndNamesMissingOnes) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("sextant-stream-csv-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "s.csv").string();
  std::ofstream(path) << "key,ts,value,wm\n1,2,3,4\n";
  EXPECT_EQ(read_stream_csv(path).size(), 1u);
  try {
    read_stream_csv((dir / "missing.csv").string());
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::io));
    EXPECT_THAT(e.what(), HasSubstr("missing.csv"));
  }
  std::ofstream(path) << "0,1,2,3\n0,1,2\n";
  try {
    read_stream_csv(path);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path + ":2: "));
  }
  std::filesystem::remove_all(dir);
}

TEST(StreamCsv, ValueColumnProjectionKeepsItsContract) {
  const StreamValues v =
      parse_stream_csv_values("key,ts,value,wm\n0,1,5,0\n1,2,7,1\n", "t.csv", ColumnType::int64);
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(v.values), (std::vector<std::int64_t>{5, 7}));
  EXPECT_TRUE(v.several_keys);
  EXPECT_THAT(parse_error("0,1,x,0\n", {ColumnType::float64, true}), HasSubstr("t.csv:1:3"));
}

// --- Parallel parsing: every chunk count gives the serial parse's result and first error. ---

constexpr int chunk_counts[] = {1, 2, 3, 7, 16};

StreamCsv in_chunks(std::string_view text, int chunks, const StreamCsvOptions& options = {}) {
  return detail::parse_stream_csv_in_chunks(text, "t.csv", options, chunks);
}

// The bytes of a column, so that -0.0 and 0.0 differ.
std::vector<unsigned char> bytes_of(const ColumnData& column) {
  return std::visit(
      [](const auto& values) {
        std::vector<unsigned char> bytes(values.size() * sizeof(values[0]));
        if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
        return bytes;
      },
      column);
}

void expect_same(const StreamCsv& serial, const StreamCsv& chunked, int chunks) {
  EXPECT_EQ(serial.keys, chunked.keys) << chunks << " chunks";
  EXPECT_EQ(serial.timestamps, chunked.timestamps) << chunks << " chunks";
  EXPECT_EQ(serial.watermarks, chunked.watermarks) << chunks << " chunks";
  EXPECT_EQ(serial.values.index(), chunked.values.index()) << chunks << " chunks";
  EXPECT_EQ(bytes_of(serial.values), bytes_of(chunked.values)) << chunks << " chunks";
  EXPECT_EQ(serial.several_keys, chunked.several_keys) << chunks << " chunks";
}

void expect_same_in_chunks(std::string_view text, const StreamCsvOptions& options = {}) {
  const StreamCsv serial = in_chunks(text, 1, options);
  for (const int chunks : chunk_counts) expect_same(serial, in_chunks(text, chunks, options), chunks);
}

// Where the values of a random stream switch from integers to doubles.
enum class Doubles { none, early, late, beyond_int64 };

struct RandomLayout {
  bool header = false;
  bool crlf = false;
  bool blanks = false;  // spaces and tabs around cells
  bool plus = false;    // '+' before some non-negative numbers
  bool final_newline = true;
  bool blank_lines_at_end = false;
  bool one_key = false;
  Doubles doubles = Doubles::none;
};

std::string random_stream(std::uint64_t seed, std::size_t rows, const RandomLayout& layout) {
  std::mt19937_64 random(seed);
  const auto pick = [&](std::uint64_t n) { return random() % n; };
  const auto cell = [&](std::string number) {
    if (layout.plus && number[0] != '-' && pick(3) == 0) number = "+" + number;
    if (layout.blanks && pick(4) == 0) number = (pick(2) ? " " : "\t") + number + (pick(2) ? "  " : "");
    return number;
  };
  const std::size_t double_row = layout.doubles == Doubles::early ? 2 : rows - rows / 6;
  std::string text = layout.header ? "key,ts,value,wm" : "";
  const char* const eol = layout.crlf ? "\r\n" : "\n";
  if (layout.header) text += eol;
  for (std::size_t i = 0; i < rows; ++i) {
    std::string value;
    if (i == double_row && layout.doubles == Doubles::beyond_int64) {
      value = "99999999999999999999";
    } else if (i == double_row && layout.doubles != Doubles::none) {
      value = "0.5";
    } else {
      switch (pick(6)) {
        case 0:  // -0.0 once parsed as a double
          value = "-0";
          break;
        case 1:
          value = std::to_string((std::int64_t{1} << 53) + 1 + static_cast<std::int64_t>(pick(1000)));
          break;
        default:
          value = std::to_string(static_cast<std::int64_t>(pick(2000000)) - 1000000);
          break;
      }
      if (layout.doubles != Doubles::none && i > double_row && pick(2) == 0) value += ".25e-3";
    }
    text += cell(std::to_string(layout.one_key ? 7 : pick(20))) + ',' + cell(std::to_string(pick(1000000))) +
            ',' + cell(value) + ',' +
            (pick(3) == 0 ? "" : cell(std::to_string(static_cast<std::int64_t>(pick(2000)) - 1000)));
    if (i + 1 < rows || layout.final_newline) text += eol;
  }
  if (layout.blank_lines_at_end) text += std::string(eol) + " \t" + eol + eol;
  return text;
}

TEST(StreamCsvInChunks, RandomStreamsGiveTheSerialResult) {
  std::uint64_t seed = 1;
  for (const Doubles doubles : {Doubles::none, Doubles::early, Doubles::late, Doubles::beyond_int64})
    for (int variant = 0; variant < 8; ++variant) {
      RandomLayout layout;
      layout.doubles = doubles;
      layout.header = variant & 1;
      layout.crlf = variant & 2;
      layout.blanks = layout.plus = variant & 4;
      layout.final_newline = variant != 3;
      layout.blank_lines_at_end = variant == 5 || variant == 6;
      layout.one_key = variant == 7;
      const std::string text = random_stream(seed++, 3000, layout);
      SCOPED_TRACE(text.substr(0, 200));
      expect_same_in_chunks(text);
    }
}

TEST(StreamCsvInChunks, AutomaticTypeMatchesTheSerialParseValueByValue) {
  // Integers, then one double, then "-0" and integers beyond 2^53: with 3 or more chunks some
  // chunk after the double's starts with integers, yet its "-0" must stay -0.0 and its large
  // integers round as the serial parse's doubles do.
  std::string text;
  for (int i = 0; i < 300; ++i) text += "0," + std::to_string(i) + ",-0,\n";
  text += "0,300,0.5,\n";
  for (int i = 301; i < 400; ++i)
    text += "1," + std::to_string(i) + (i % 2 ? ",-0,\n" : ",9007199254740993,\n");
  const StreamCsv serial = in_chunks(text, 1);
  const auto& v = values<double>(serial);
  ASSERT_EQ(v.size(), 400u);
  EXPECT_FALSE(std::signbit(v[0]));   // converted from the integer 0
  EXPECT_TRUE(std::signbit(v[301]));  // parsed as a double
  EXPECT_EQ(v[302], 9007199254740992.0);
  for (const int chunks : chunk_counts) expect_same(serial, in_chunks(text, chunks), chunks);
}

TEST(StreamCsvInChunks, RequestedTypesAndValuesOnlyGiveTheSerialResult) {
  RandomLayout layout;
  layout.header = layout.blanks = layout.plus = layout.blank_lines_at_end = true;
  const std::string text = random_stream(99, 2000, layout);
  for (const ColumnType type : {ColumnType::int64, ColumnType::float32, ColumnType::float64})
    for (const bool values_only : {false, true}) {
      SCOPED_TRACE(static_cast<int>(type) * 10 + values_only);
      expect_same_in_chunks(text, {type, values_only});
    }
  // int32: values within its range.
  std::string small;
  for (int i = 0; i < 2000; ++i)
    small +=
        std::to_string(i % 3) + ',' + std::to_string(i) + ',' + std::to_string(i * 1000 - 1000000) + ",\n";
  expect_same_in_chunks(small, {ColumnType::int32, false});
  expect_same_in_chunks(small, {ColumnType::int32, true});
  for (const int chunks : chunk_counts)
    EXPECT_TRUE(in_chunks(small, chunks, {ColumnType::int32, true}).several_keys) << chunks;
}

TEST(StreamCsvInChunks, EmptyAndHeaderOnlyTexts) {
  for (const char* text : {"", "\n\n", "key,ts,value,wm\n", "key,ts,value,wm", "key,ts,value,wm\n\n \n"})
    for (const int chunks : chunk_counts) {
      const StreamCsv csv = in_chunks(text, chunks);
      EXPECT_EQ(csv.size(), 0u) << text << chunks;
      EXPECT_EQ(csv.values.index(), 1u) << text << chunks;  // int64
      EXPECT_TRUE(csv.keys.empty() && csv.timestamps.empty() && csv.watermarks.empty()) << text << chunks;
    }
}

// The 1-based file line each chunk starts with, as the parser cuts `text` into `chunks`.
std::vector<std::size_t> chunk_first_lines(std::string_view text, int chunks) {
  std::vector<std::size_t> lines;
  std::size_t begin = 0;
  for (std::size_t k = 1; k <= static_cast<std::size_t>(chunks) && begin < text.size(); ++k) {
    lines.push_back(1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + begin, '\n')));
    const std::size_t nl = text.find('\n', std::max(begin, k * text.size() / chunks));
    begin = k < static_cast<std::size_t>(chunks) && nl != std::string_view::npos ? nl + 1 : text.size();
  }
  return lines;
}

// `text` with line `line` (1-based) replaced by `content` of the same length: chunks stay put.
std::string with_line(std::string text, std::size_t line, std::string_view content) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i < line; ++i) begin = text.find('\n', begin) + 1;
  const std::size_t end = std::min(text.find('\n', begin), text.size());
  EXPECT_EQ(end - begin, content.size()) << "line " << line;
  return text.replace(begin, end - begin, content);
}

// 240 rows of 20 bytes, "k,tttttt,vvvv,wwwwww" (the value padded with blanks), after a header.
std::string fixed_rows(const char* first_value = nullptr) {
  std::string text = "key,ts,value,wm\n";
  char row[48];  // 21 bytes and the newline are used; room for what -Wformat-truncation assumes of %d
  for (int i = 0; i < 240; ++i) {
    std::snprintf(row, sizeof row, "%d,%06d,%4d,%06d\n", i % 10, i, i % 97 - 40, i);
    text += row;
  }
  return first_value ? with_line(text, 2, std::string("0,000000,") + first_value + ",000000") : text;
}

std::string error_in_chunks(std::string_view text, int chunks, const StreamCsvOptions& options = {}) {
  try {
    in_chunks(text, chunks, options);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error with " << chunks << " chunks";
  return {};
}

// Every chunk count throws the serial parse's error, which names `where`.
void expect_same_error(std::string_view text, const std::string& where,
                       const StreamCsvOptions& options = {}) {
  const std::string serial = error_in_chunks(text, 1, options);
  EXPECT_THAT(serial, HasSubstr(where));
  for (const int chunks : chunk_counts) EXPECT_EQ(error_in_chunks(text, chunks, options), serial) << chunks;
}

TEST(StreamCsvInChunks, SeveralKeysAcrossChunksWithOneKeyEach) {
  constexpr std::size_t row_bytes = 12;  // "3,tttttt,1,\n"
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "3," + std::to_string(100000 + i) + ",1,\n";
  for (const int chunks : chunk_counts) {
    EXPECT_FALSE(in_chunks(text, chunks).several_keys) << chunks;
    // Another key from the last chunk on: each chunk alone holds one key.
    std::string two = text;
    const std::size_t from = chunks == 1 ? 500 : chunk_first_lines(text, chunks).back();
    for (std::size_t line = from; line <= 1000; ++line) two[(line - 1) * row_bytes] = '4';
    EXPECT_TRUE(in_chunks(two, chunks).several_keys) << chunks;
  }
}

TEST(StreamCsvInChunks, ErrorsAtChunkEdgesAreTheSerialOnes) {
  const std::string base = fixed_rows();
  expect_same_in_chunks(base);
  const std::vector<std::size_t> first = chunk_first_lines(base, 3);
  ASSERT_EQ(first.size(), 3u);
  const std::size_t last = 241;
  for (const std::size_t line : {first[1], first[2], last}) {
    SCOPED_TRACE(line);
    const std::string at = "t.csv:" + std::to_string(line) + ":";
    expect_same_error(with_line(base, line, "x,000001,   1,000001"), at + "1: key 'x'");
    expect_same_error(with_line(base, line, "1,000001,1,00,000001"), at + " expected 4 cells");  // ragged
  }
  // A blank line at a chunk's start, or at the end of the chunk before (data follows in the next
  // chunk, so no chunk sees the error alone), for every cut.
  for (const int chunks : chunk_counts)
    for (const std::size_t line : chunk_first_lines(base, chunks))
      for (const std::size_t blank : {line, line - 1})
        if (blank > 1) {
          SCOPED_TRACE(blank);
          expect_same_error(with_line(base, blank, "                    "),
                            "t.csv:" + std::to_string(blank) + ": blank line");
        }
  // A blank line ending a chunk, then an error in the next: the blank line is the first error.
  expect_same_error(
      with_line(with_line(base, first[2], "x,000001,   1,000001"), first[2] - 1, "                    "),
      "t.csv:" + std::to_string(first[2] - 1) + ": blank line");
  // The first of two errors in different chunks.
  expect_same_error(
      with_line(with_line(base, first[2], "x,000001,   1,000001"), first[1] + 3, "1,-00001,   1,000001"),
      "t.csv:" + std::to_string(first[1] + 3) + ":2: negative timestamp");
}

TEST(StreamCsvInChunks, BadValueAfterAnEarlierChunkSwitchedToDouble) {
  const std::string base = fixed_rows(" 0.5");
  expect_same_in_chunks(base);
  EXPECT_EQ(in_chunks(base, 3).values.index(), 3u);  // double
  const std::size_t line = chunk_first_lines(base, 3)[2] + 1;
  expect_same_error(with_line(base, line, "1,000001, nan,000001"),
                    "t.csv:" + std::to_string(line) + ":3: value 'nan'");
  expect_same_error(with_line(base, line, "1,000001,   z,000001"),
                    "t.csv:" + std::to_string(line) + ":3: value 'z'");
}

TEST(StreamCsvInChunks, ErrorsWithARequestedTypeAndValuesOnly) {
  const std::string base = fixed_rows();
  const std::size_t line = chunk_first_lines(base, 3)[2] + 2;
  const std::string at = "t.csv:" + std::to_string(line) + ":";
  expect_same_error(with_line(base, line, "1,000001, 0.5,000001"), at + "3: value '0.5' is not an int32",
                    {ColumnType::int32, false});
  expect_same_error(with_line(base, line, "1,000001,1e99,000001"), at + "3: value '1e99' is not an int64",
                    {ColumnType::int64, true});
  expect_same_error(with_line(base, line, "1,000001,1e39,000001"),
                    at + "3: value '1e39' is outside the float", {ColumnType::float32, false});
  expect_same_error(with_line(base, line, "1,000001, inf,000001"), at + "3: value 'inf' is NaN",
                    {ColumnType::float64, true});
  expect_same_error(with_line(base, line, "1,000001,   1,0000x1"), at + "4: watermark",
                    {ColumnType::float64, true});
}

// Plain rows (digits only, read in one pass) and decorated ones (read cell by cell) against an
// independent reader: strtoull / strtoll / strtod / strtof on the trimmed cells. Numbers of 1 to 19
// digits, leading zeros, "-0", the int64 and key extremes, empty watermarks, and rows in the last
// bytes of the text, where a number cannot be read a word at a time.
struct ReferenceRows {
  std::vector<window::StreamKey> keys;
  std::vector<std::int64_t> timestamps, watermarks;
  std::vector<std::string> values;  // the value cells, trimmed, '+' dropped
};

ReferenceRows reference_rows(const std::string& text) {
  ReferenceRows rows;
  std::istringstream lines(text);
  const auto trim_cell = [](std::string cell) {
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r'))
      cell.pop_back();
    std::size_t first = cell.find_first_not_of(" \t");
    cell = first == std::string::npos ? "" : cell.substr(first);
    return !cell.empty() && cell[0] == '+' ? cell.substr(1) : cell;
  };
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(trim_cell(cell));
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (cells.size() != 4) {
      ADD_FAILURE() << "reference: not a row: " << line;
      continue;
    }
    rows.keys.push_back(static_cast<window::StreamKey>(std::strtoull(cells[0].c_str(), nullptr, 10)));
    rows.timestamps.push_back(std::strtoll(cells[1].c_str(), nullptr, 10));
    rows.values.push_back(cells[2]);
    rows.watermarks.push_back(cells[3].empty() ? window::no_watermark
                                               : std::strtoll(cells[3].c_str(), nullptr, 10));
  }
  return rows;
}

// A decimal of `digits` digits (leading zeros allowed) no larger than `most`.
std::string random_digits(std::mt19937_64& random, int digits, std::uint64_t most) {
  for (;;) {
    std::string s;
    for (int i = 0; i < digits; ++i) s += static_cast<char>('0' + random() % 10);
    if (std::strtoull(s.c_str(), nullptr, 10) <= most && s.size() <= 19) return s;
  }
}

std::string random_plain_and_decorated_rows(std::uint64_t seed, std::size_t rows, bool fractions) {
  std::mt19937_64 random(seed);
  constexpr std::uint64_t int64_max = std::numeric_limits<std::int64_t>::max();
  const auto length = [&] {  // 1..19, often 7..9 and 15..17 (the word edges)
    static constexpr int edges[] = {1, 7, 8, 9, 15, 16, 17, 18, 19};
    return random() % 2 ? edges[random() % 9] : 1 + static_cast<int>(random() % 19);
  };
  const auto signed_number = [&] {
    switch (random() % 8) {
      case 0:
        return std::string("-0");
      case 1:
        return std::string(random() % 2 ? "9223372036854775807" : "-9223372036854775807");
      default:
        return (random() % 2 ? "-" : "") + random_digits(random, length(), int64_max);
    }
  };
  const auto decorate = [&](std::string cell) {
    switch (random() % 12) {
      case 0:
        return " " + cell;
      case 1:
        return cell + "\t";
      case 2:
        return cell[0] == '-' ? cell : "+" + cell;
      default:
        return cell;
    }
  };
  std::string text;
  for (std::size_t i = 0; i < rows; ++i) {
    std::string value = signed_number();
    if (fractions && random() % 2)
      value = std::to_string(static_cast<int>(random() % 2000) - 1000) + "." +
              random_digits(random, 1 + static_cast<int>(random() % 8), ~0ull);
    const std::string key = random() % 10 == 0
                                ? "4294967295"
                                : random_digits(random, 1 + static_cast<int>(random() % 10), 4294967295u);
    text += decorate(key) + ',' + decorate(random_digits(random, length(), int64_max)) + ',' +
            decorate(value) + ',' + (random() % 5 == 0 ? std::string() : decorate(signed_number()));
    if (random() % 20 == 0) text += '\r';
    if (i + 1 < rows || random() % 2) text += '\n';
  }
  return text;
}

TEST(StreamCsvPlainRows, MatchAnIndependentReaderForEveryValueType) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const bool fractions = seed % 2 == 0;
    const std::string text = random_plain_and_decorated_rows(seed, seed < 30 ? 200 : 3, fractions);
    SCOPED_TRACE(text.substr(0, 300));
    const ReferenceRows expected = reference_rows(text);
    const auto first_double = static_cast<std::size_t>(
        std::find_if(expected.values.begin(), expected.values.end(),
                     [](const std::string& v) { return v.find('.') != std::string::npos; }) -
        expected.values.begin());
    const bool doubles = first_double < expected.values.size();
    for (const auto type :
         {std::optional<ColumnType>{}, std::optional<ColumnType>{ColumnType::int64},
          std::optional<ColumnType>{ColumnType::float32}, std::optional<ColumnType>{ColumnType::float64}}) {
      if (doubles && type == ColumnType::int64) continue;
      const StreamCsv csv = parse_stream_csv(text, "t.csv", {type, false});
      EXPECT_EQ(csv.keys, expected.keys);
      EXPECT_EQ(csv.timestamps, expected.timestamps);
      EXPECT_EQ(csv.watermarks, expected.watermarks);
      ASSERT_EQ(csv.size(), expected.values.size());
      ASSERT_EQ(csv.values.index(), !type ? (doubles ? 3u : 1u) : static_cast<std::size_t>(*type) - 1);
      for (std::size_t i = 0; i < csv.size(); ++i) {
        const std::string& cell = expected.values[i];
        if (!type && !doubles) {
          EXPECT_EQ(values<std::int64_t>(csv)[i], std::strtoll(cell.c_str(), nullptr, 10)) << cell;
        } else if (type == ColumnType::int64) {
          EXPECT_EQ(values<std::int64_t>(csv)[i], std::strtoll(cell.c_str(), nullptr, 10)) << cell;
        } else if (type == ColumnType::float32) {
          EXPECT_EQ(std::bit_cast<std::uint32_t>(values<float>(csv)[i]),
                    std::bit_cast<std::uint32_t>(std::strtof(cell.c_str(), nullptr)))
              << cell;
        } else {  // double: requested, or automatic once a value has a fraction (integers before
                  // it are converted, so "-0" there is +0.0)
          const double want = !type && i < first_double
                                  ? static_cast<double>(std::strtoll(cell.c_str(), nullptr, 10))
                                  : std::strtod(cell.c_str(), nullptr);
          EXPECT_EQ(std::bit_cast<std::uint64_t>(values<double>(csv)[i]), std::bit_cast<std::uint64_t>(want))
              << cell;
        }
      }
    }
  }
}

// A row that starts like a plain one but is not valid gets the cell-by-cell error, with its line
// and column, in the middle of the text and as its last line without a line end.
TEST(StreamCsvPlainRows, NearMissesGiveTheCellByCellErrors) {
  const std::string good = "7,100,5,90\n";
  struct Case {
    const char* row;
    std::optional<ColumnType> type;
    const char* where;  // ":column: start of the message"
  };
  for (const Case& c : {
           Case{"4294967296,100,5,90", {}, ":1: key '4294967296' is out of range"},
           Case{"7,-100,5,90", {}, ":2: negative timestamp -100"},
           Case{"7,99999999999999999999,5,90", {}, ":2: timestamp '99999999999999999999' is outside"},
           Case{"7,100,5,90,1", {}, ": expected 4 cells"},
           Case{"7,100,5,-", {}, ":4: watermark '-' is not an integer"},
           Case{"7,100,-,90", {}, ":3: value '-' is not a number"},
           Case{"7,100,2147483648,90", ColumnType::int32, ":3: value '2147483648' is outside the int32"},
           Case{"7,100,1e400,90", ColumnType::float64, ":3: value '1e400' is outside the double"},
           Case{"7,100,-inf,90", {}, ":3: value '-inf' is NaN or infinite"},
           Case{"7,100,0.5,90", ColumnType::int64, ":3: value '0.5' is not an int64"},
           Case{"7,100,5,99999999999999999999", {}, ":4: watermark '99999999999999999999' is outside"},
       }) {
    SCOPED_TRACE(c.row);
    EXPECT_THAT(parse_error(good + c.row + "\n" + good, {c.type, false}),
                HasSubstr(std::string("t.csv:2") + c.where));
    EXPECT_THAT(parse_error(good + good + c.row, {c.type, false}),
                HasSubstr(std::string("t.csv:3") + c.where));
  }
  // A blank line before a plain row.
  EXPECT_THAT(parse_error(good + "\n" + good), HasSubstr("t.csv:2: blank line inside the data"));
}

TEST(StreamCsvInChunks, LargeFilesAreParsedOnEveryCoreWithTheSerialResult) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("sextant-stream-csv-chunks-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "big.csv").string();
  RandomLayout layout;
  layout.header = layout.blanks = true;
  layout.doubles = Doubles::late;
  const std::string text = random_stream(7, 260000, layout);
  ASSERT_GT(text.size(), std::size_t{4} << 20);  // the parallel path
  std::ofstream(path, std::ios::binary) << text;
  expect_same(detail::parse_stream_csv_in_chunks(text, path, {}, 1), read_stream_csv(path), 0);
  const StreamCsvOptions typed{ColumnType::float32, true};
  expect_same(detail::parse_stream_csv_in_chunks(text, path, typed, 1), read_stream_csv(path, typed), 0);
  // An error far into the file: the serial parse's message.
  std::string bad = text;
  bad.insert(bad.find('\n', bad.size() - 1000) + 1, "\n\n");
  std::ofstream(path, std::ios::binary) << bad;
  std::string serial;
  try {
    detail::parse_stream_csv_in_chunks(bad, path, {}, 1);
  } catch (const Error& e) {
    serial = e.what();
  }
  EXPECT_THAT(serial, HasSubstr("blank line inside the data"));
  try {
    read_stream_csv(path);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), serial);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sextant::datagen
