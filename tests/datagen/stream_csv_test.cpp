// The stream CSV reader and writer: columns, value typing, tolerated layout, round trips, and
// every error naming file, line and column.
#include "datagen/stream_csv.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
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

}  // namespace
}  // namespace sextant::datagen
