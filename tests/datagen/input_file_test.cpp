// Inputs that are not plain small files: FIFOs (read exactly once), endless devices and
// over-long lines (bounded), a UTF-8 byte order mark (skipped), directories (I/O errors with the
// reason) and trailing or missing bytes of binary formats read from a pipe.
#include "datagen/input_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "datagen/binary.hpp"
#include "datagen/column_file.hpp"
#include "datagen/csv.hpp"
#include "datagen/stream_csv.hpp"
#include "support/error_of.hpp"
#include "support/fifo_writer.hpp"
#include "tests/support/test_directory.hpp"

namespace sextant::datagen {
namespace {

namespace fs = std::filesystem;
using sextant::testing::FifoWriter;
using ::testing::HasSubstr;

using sextant::testing::error_of;

// What a reader does with a text: parse it as a stream CSV (here it throws on the zeros of a
// truncated mapping: "expected 4 cells").
std::size_t read_stream_csv_values_of(std::string_view text) {
  return parse_stream_csv(text, "t.csv").size();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sextant::testing::test_directory("sextant-input");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }

  fs::path dir_;
};

TEST_F(InputFileTest, PeekThenReadReturnsEveryByteOnce) {
  InputFile file(write("f", "SXTDabcdef"));
  ASSERT_TRUE(file.size());
  EXPECT_EQ(*file.size(), 10u);
  EXPECT_EQ(file.peek(4), "SXTD");
  EXPECT_EQ(file.peek(2), "SX");
  char buffer[16] = {};
  EXPECT_EQ(file.read(buffer, 6), 6u);
  EXPECT_EQ(std::string(buffer, 6), "SXTDab");
  EXPECT_EQ(file.peek(100), "cdef");
  EXPECT_EQ(file.count_rest(100), 4u);
  EXPECT_EQ(file.read(buffer, 16), 0u);
}

TEST_F(InputFileTest, OpenErrorsNameTheReason) {
  EXPECT_THAT(error_of([&] { InputFile f(path("missing")); }, ErrorKind::io),
              HasSubstr(path("missing") + ": cannot open for reading: No such file or directory"));
  EXPECT_THAT(error_of([&] { InputFile f(dir_.string()); }, ErrorKind::io),
              HasSubstr(dir_.string() + ": cannot read: Is a directory"));
  EXPECT_THAT(error_of([&] { read_dataset(dir_.string()); }, ErrorKind::io), HasSubstr("Is a directory"));
  EXPECT_THAT(error_of([&] { read_stream_csv(dir_.string()); }, ErrorKind::io), HasSubstr("Is a directory"));
  EXPECT_THAT(error_of([&] { read_column_file(dir_.string()); }, ErrorKind::io), HasSubstr("Is a directory"));
}

TEST_F(InputFileTest, ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  const Dataset data = parse_csv(bom + "1,2\n3,4\n", "t.csv");
  EXPECT_EQ(data.size(), 2u);
  EXPECT_EQ(data(0, 0), 1.0f);
  EXPECT_EQ(parse_csv(bom + "a,b\n1,2\n", "t.csv").size(), 1u);  // still a header
  EXPECT_EQ(read_dataset(write("bom.csv", bom + "5\n6\n")).size(), 2u);

  const StreamCsv csv = parse_stream_csv(bom + "0,1,5,0\n0,2,6,1\n", "s.csv");
  EXPECT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv.keys[0], 0u);
  EXPECT_EQ(parse_stream_csv(bom + "key,ts,value,wm\n0,1,5,0\n", "s.csv").size(), 1u);
  // Only at the very start: elsewhere it is a bad cell.
  EXPECT_THAT(error_of([&] { parse_csv("1,2\n" + bom + "3,4\n", "t.csv"); }, ErrorKind::bad_input),
              HasSubstr("t.csv:2:1: not a number"));
}

TEST_F(InputFileTest, OverLongLinesAreRejectedWithTheLineAndTheLimit) {
  const std::string long_line(max_line_bytes + 1, '1');
  const std::string limit = std::to_string(max_line_bytes);
  EXPECT_THAT(error_of([&] { parse_csv("1\n" + long_line + "\n", "t.csv"); }, ErrorKind::bad_input),
              HasSubstr("t.csv:2: line longer than " + limit + " bytes"));
  EXPECT_THAT(error_of([&] { parse_stream_csv("0,1,2,3\n" + long_line, "s.csv"); }, ErrorKind::bad_input),
              HasSubstr("s.csv:2: line longer than " + limit + " bytes"));
  // From a file: the reader stops at the line, before the parser sees it.
  const std::string file = write("long.csv", "1\n2\n" + long_line + "\n3\n");
  EXPECT_THAT(error_of([&] { read_csv(file); }, ErrorKind::bad_input),
              HasSubstr(file + ":3: line longer than " + limit + " bytes"));
  EXPECT_THAT(error_of([&] { read_stream_csv(file); }, ErrorKind::bad_input), HasSubstr(file + ":3: line"));
  // Exactly at the limit is fine (the reader's chunk boundaries fall inside the line).
  const std::string at_limit = std::string(max_line_bytes - 2, ' ') + "1,";
  EXPECT_EQ(read_csv(write("limit.csv", "7\n" + at_limit + "\n" + at_limit)).size(), 3u);
}

TEST_F(InputFileTest, EndlessInputWithoutLineEndsStopsAtTheLimit) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(error_of([&] { read_dataset("/dev/zero"); }, ErrorKind::bad_input),
              HasSubstr("/dev/zero:1: line longer than"));
  EXPECT_THAT(error_of([&] { read_stream_csv("/dev/zero"); }, ErrorKind::bad_input),
              HasSubstr("/dev/zero:1: line longer than"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(InputFileTest, FifoIsReadOnce) {
  {
    FifoWriter writer(path("csv.fifo"), "a,b\n1,2\n3,4\n");
    EXPECT_EQ(read_dataset(path("csv.fifo")).size(), 2u);
    EXPECT_FALSE(writer.reopened());
  }
  {
    const Dataset data(3, 2, std::vector<float>{1, 2, 3, 4, 5, 6});
    write_binary(path("d.sxtd"), data);
    FifoWriter writer(path("bin.fifo"), bytes_of(path("d.sxtd")));
    const Dataset back = read_dataset(path("bin.fifo"));
    EXPECT_EQ(back.size(), 3u);
    EXPECT_EQ(back(2, 1), 6.0f);
    EXPECT_FALSE(writer.reopened());
  }
  {
    FifoWriter writer(path("s.fifo"), "key,ts,value,wm\n0,1,5,0\n");
    EXPECT_EQ(read_stream_csv(path("s.fifo")).size(), 1u);
    EXPECT_FALSE(writer.reopened());
  }
}

TEST_F(InputFileTest, BinaryFormatsFromAPipeCheckTheirLength) {
  const Dataset data(3, 2, std::vector<float>{1, 2, 3, 4, 5, 6});
  write_binary(path("d.sxtd"), data);
  const std::string dataset = bytes_of(path("d.sxtd"));
  {
    FifoWriter writer(path("short.fifo"), dataset.substr(0, dataset.size() - 3));
    EXPECT_THAT(error_of([&] { read_dataset(path("short.fifo")); }, ErrorKind::bad_input),
                HasSubstr("truncated: the file has 45 bytes, the header (n = 3, d = 2) needs 48"));
  }
  {
    FifoWriter writer(path("long.fifo"), dataset + "xyz");
    EXPECT_THAT(error_of([&] { read_dataset(path("long.fifo")); }, ErrorKind::bad_input),
                HasSubstr("trailing bytes: the file has 51 bytes, the header (n = 3, d = 2) needs 48"));
  }
  write_column_file(path("c.sxtc"), std::vector<std::int32_t>{1, 2, 3});
  const std::string column = bytes_of(path("c.sxtc"));
  {
    FifoWriter writer(path("c.fifo"), column);
    InputFile file(path("c.fifo"));
    EXPECT_EQ(std::get<std::vector<std::int32_t>>(read_column_file(file)),
              (std::vector<std::int32_t>{1, 2, 3}));
  }
  {
    FifoWriter writer(path("c2.fifo"), column + "x");
    EXPECT_THAT(error_of([&] { read_column_file(path("c2.fifo")); }, ErrorKind::bad_input),
                HasSubstr("trailing bytes: the file has 37 bytes"));
  }
  {
    FifoWriter writer(path("c3.fifo"), column.substr(0, 30));
    EXPECT_THAT(error_of([&] { read_column_file(path("c3.fifo")); }, ErrorKind::bad_input),
                HasSubstr("truncated: the file has 30 bytes"));
  }
}

// A regular file is read on every core in blocks: the same bytes as one front-to-back read, with
// the peeked bytes included, at sizes around the block and the parallel threshold.
TEST_F(InputFileTest, InputTextOfAFileIsEveryByteInOrder) {
  std::mt19937 rng(3);
  for (const std::size_t size :
       {std::size_t{0}, std::size_t{1}, std::size_t{1} << 20, (std::size_t{1} << 20) + 1,
        (std::size_t{4} << 20) - 1, (std::size_t{9} << 20) + 12345}) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = rng() % 50 == 0 ? '\n' : static_cast<char>('a' + rng() % 26);
    std::string file_name = "t";  // not "t" + ...: GCC 12 warns of a false overflow (-Wstringop-overflow)
    file_name += std::to_string(size);
    const std::string name = write(file_name, bytes);
    InputFile file(name);
    file.peek(3);
    EXPECT_TRUE(InputText(file).view() == bytes) << size;
    InputFile again(name);
    InputFile once_more(name);
    const InputText text(again);
    EXPECT_TRUE(text.view() == read_text(once_more)) << size;
  }
  // Bytes consumed by read() are not read again, in a small file (read) and a large one (mapped
  // from an offset inside a page).
  for (const std::size_t size : {std::size_t{10}, std::size_t{5} << 20}) {
    std::string rest(size, 'x');
    for (std::size_t i = 0; i < size; i += 997) rest[i] = i % 2 ? '\n' : static_cast<char>('a' + i % 26);
    InputFile file(write("r", "SXTD" + rest));
    char magic[4];
    ASSERT_EQ(file.read(magic, 4), 4u);
    EXPECT_TRUE(InputText(file).view() == rest) << size;
  }
}

// A mapped file that another process truncates: the pages past its new end read as zeros instead
// of ending the process with SIGBUS, and the reader's error says that the file changed.
TEST_F(InputFileTest, AMappedFileThatShrinksIsAnErrorNotACrash) {
  std::string rows;
  while (rows.size() < (std::size_t{6} << 20)) rows += "1,2,3,4\n";
  const std::string name = write("shrinks.csv", rows);
  {
    InputFile file(name);
    const InputText text(file);
    EXPECT_NO_THROW(text.throw_if_changed());
    ASSERT_EQ(::truncate(name.c_str(), 1 << 20), 0);
    const volatile char* last = text.view().data() + text.view().size() - 1;
    EXPECT_EQ(*last, '\0');
    EXPECT_THAT(error_of([&] { text.throw_if_changed(); }, ErrorKind::io),
                HasSubstr(name + ": the file shrank while it was being read"));
  }
  // Through a reader: the error is the file's change, not what the parse found in the zeros.
  write("shrinks.csv", rows);
  InputFile file(name);
  EXPECT_THAT(error_of(
                  [&] {
                    parse_text(file, [&](std::string_view text) {
                      EXPECT_EQ(::truncate(name.c_str(), 1 << 20), 0);
                      return read_stream_csv_values_of(text);
                    });
                  },
                  ErrorKind::io),
              HasSubstr("the file shrank while it was being read"));
  // The same file unchanged reads as before.
  write("shrinks.csv", rows);
  InputFile again(name);
  EXPECT_EQ(parse_text(again, [](std::string_view text) { return text.size(); }), rows.size());
}

// The line bound of read_text, checked on the whole text: a line of max_line_bytes passes, one
// byte more fails naming its line, wherever it is (first line, last line without a line end, in a
// file read on every core).
TEST_F(InputFileTest, InputTextChecksLineLengths) {
  const std::string at_limit(max_line_bytes, 'x');
  const std::string over(max_line_bytes + 1, 'x');
  const std::string limit = std::to_string(max_line_bytes);
  std::string many_lines;
  for (int i = 0; i < 200000; ++i) many_lines += "1,2,3\n";  // 1.2 MB of short lines
  const auto text_of = [&](const std::string& name, const std::string& bytes) {
    InputFile file(write(name, bytes));
    return std::string(InputText(file).view());
  };
  EXPECT_EQ(text_of("a", at_limit + "\n" + at_limit).size(), 2 * max_line_bytes + 1);
  // A '\r' before the line end counts, as in read_text.
  EXPECT_EQ(text_of("b", many_lines + at_limit.substr(1) + "\r\n" + many_lines).size(),
            2 * many_lines.size() + max_line_bytes + 1);
  EXPECT_THAT(error_of([&] { text_of("c", over); }, ErrorKind::bad_input),
              HasSubstr(path("c") + ":1: line longer than " + limit + " bytes"));
  EXPECT_THAT(error_of([&] { text_of("d", many_lines + many_lines + over); }, ErrorKind::bad_input),
              HasSubstr(path("d") + ":400001: line longer than " + limit + " bytes"));
  EXPECT_THAT(
      error_of([&] { text_of("e", many_lines + at_limit + "\r\n" + many_lines); }, ErrorKind::bad_input),
      HasSubstr(path("e") + ":200001: line longer than " + limit + " bytes"));
  EXPECT_THAT(error_of([&] { text_of("f", "1\n" + over + "\n2\n"); }, ErrorKind::bad_input),
              HasSubstr(path("f") + ":2: line longer than " + limit + " bytes"));
}

}  // namespace
}  // namespace sextant::datagen
