#include "datagen/csv_tokens.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace sextant::datagen::detail {
namespace {

std::vector<std::string> cells_of(std::string_view line, TrailingComma trailing) {
  std::vector<std::string> out;
  for (CsvCells cells(line, trailing); !cells.done();) {
    out.emplace_back(cells.next());
    EXPECT_EQ(cells.column(), out.size());
  }
  return out;
}

using Cells = std::vector<std::string>;

TEST(CsvCells, SplitsAtEveryCommaAndTrimsBlanks) {
  EXPECT_EQ(cells_of("1,2,3", TrailingComma::cell), (Cells{"1", "2", "3"}));
  EXPECT_EQ(cells_of(" 1 ,\t2\t, 3\r", TrailingComma::cell), (Cells{"1", "2", "3"}));
  EXPECT_EQ(cells_of("a b, c", TrailingComma::cell), (Cells{"a b", "c"}));  // blanks inside stay
  EXPECT_EQ(cells_of("", TrailingComma::cell), (Cells{""}));                // a line has one cell
  EXPECT_EQ(cells_of(",,", TrailingComma::cell), (Cells{"", "", ""}));
}

TEST(CsvCells, TrailingCommaIsACellOrDropped) {
  EXPECT_EQ(cells_of("1,2,", TrailingComma::cell), (Cells{"1", "2", ""}));
  EXPECT_EQ(cells_of("1,2, \r", TrailingComma::dropped), (Cells{"1", "2"}));
  EXPECT_EQ(cells_of("1,2,,", TrailingComma::dropped), (Cells{"1", "2", ""}));  // one only
  EXPECT_EQ(CsvCells("1,2,", TrailingComma::cell).count(), 3u);
  EXPECT_EQ(CsvCells("1,2,", TrailingComma::dropped).count(), 2u);
}

TEST(CsvCells, CountIsTheWholeLineWhereverTheCursorIs) {
  CsvCells cells("a,b,c,d", TrailingComma::cell);
  EXPECT_EQ(cells.count(), 4u);
  (void)cells.next();
  (void)cells.next();
  EXPECT_EQ(cells.count(), 4u);
  EXPECT_EQ(cells.column(), 2u);
}

const char* read_int(const char* first, const char* last, int& value) {
  const auto [ptr, ec] = std::from_chars(first, last, value);
  return ec == std::errc{} ? ptr : nullptr;
}

TEST(CsvCells, InPlaceTakesACellOnlyWhenTheParseReachesItsEnd) {
  CsvCells cells(" 12 ,3x, 4", TrailingComma::cell);
  int value = 0;
  const auto parse = [&value](const char* first, const char* last) { return read_int(first, last, value); };
  ASSERT_TRUE(cells.next_in_place(parse));
  EXPECT_EQ(value, 12);
  EXPECT_EQ(cells.column(), 1u);
  // "3x": the parse stops before 'x', so the cell is not taken and next() gives all of it.
  EXPECT_FALSE(cells.next_in_place(parse));
  EXPECT_EQ(cells.column(), 1u);
  EXPECT_EQ(cells.next(), "3x");
  EXPECT_EQ(cells.column(), 2u);
  ASSERT_TRUE(cells.next_in_place(parse));
  EXPECT_EQ(value, 4);
  EXPECT_TRUE(cells.done());
  EXPECT_EQ(cells.column(), 3u);

  CsvCells empty("1,,2", TrailingComma::cell);
  ASSERT_TRUE(empty.next_in_place(parse));
  EXPECT_FALSE(empty.next_in_place(parse));  // a failed parse (nullptr) takes nothing
  EXPECT_EQ(empty.next(), "");
  EXPECT_FALSE(empty.done());
}

TEST(Quoted, ShowsAtMostFortyCharacters) {
  EXPECT_EQ(detail::quoted("abc"), "'abc'");
  EXPECT_EQ(detail::quoted(""), "''");
  const std::string long_cell(45, 'x');
  EXPECT_EQ(detail::quoted(long_cell), "'" + std::string(40, 'x') + "...'");
  EXPECT_EQ(detail::quoted(std::string(40, 'y')), "'" + std::string(40, 'y') + "'");
}

}  // namespace
}  // namespace sextant::datagen::detail
