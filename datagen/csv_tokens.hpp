// The one cell splitter of the CSV readers of datagen/ (dataset CSV and stream CSV; internal).
//
// A line is cut at every comma (there is no quoting); blanks (space, tab, CR) around a cell are
// not part of it. Each cell knows its 1-based column, so errors can name it.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace sextant::datagen::detail {

constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r';
}

// `s` without leading and trailing blanks (space, tab, CR).
constexpr std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Bytes of text from which the CSV readers parse on every core, in chunks cut at line ends:
// below it a thread's start costs more than it saves.
inline constexpr std::size_t parallel_parse_min_bytes = std::size_t{1} << 22;

// `text` cut into at most `chunks` pieces of whole lines (each but the last ends with '\n').
std::vector<std::string_view> split_at_lines(std::string_view text, int chunks);

// The '\n' in `text`.
std::size_t count_line_ends(std::string_view text) noexcept;

// A cell as error messages show it: in single quotes, cut after 40 characters ("...").
std::string quoted(std::string_view cell);

enum class TrailingComma {
  cell,     // "1,2," has three cells, the last one empty
  dropped,  // one comma at the end of the line is tolerated: "1,2," has two cells
};

// The cells of one line (without its '\n'), front to back. A line has at least one cell.
class CsvCells {
 public:
  CsvCells(std::string_view line, TrailingComma trailing) noexcept : line_(trim(line)) {
    if (trailing == TrailingComma::dropped && !line_.empty() && line_.back() == ',') line_.remove_suffix(1);
    p_ = line_.data();
    end_ = p_ + line_.size();
  }

  // Every cell has been returned.
  bool done() const noexcept { return done_; }
  // The 1-based column of the cell returned last (0 before the first).
  std::size_t column() const noexcept { return column_; }
  // The number of cells of the whole line, wherever the cursor is.
  std::size_t count() const noexcept {
    std::size_t commas = 0;
    for (const char c : line_) commas += c == ',';
    return commas + 1;
  }

  // The next cell, trimmed. Only while !done().
  std::string_view next() noexcept {
    const auto left = static_cast<std::size_t>(end_ - p_);
    const auto* comma = left == 0 ? nullptr : static_cast<const char*>(std::memchr(p_, ',', left));
    const char* const cell_end = comma ? comma : end_;
    const std::string_view cell(p_, static_cast<std::size_t>(cell_end - p_));
    advance(comma);
    return trim(cell);
  }

  // The next cell read in place, in one pass: `parse(first, last)` reads from the cell's first
  // non-blank character and returns where it stopped, or nullptr when it failed. The cell is
  // taken when only blanks follow up to the comma or the end of the line; otherwise nothing is
  // consumed and false comes back (next() then gives the whole cell, to say what is wrong).
  template <class Parse>
  bool next_in_place(Parse&& parse) {
    const char* first = p_;
    while (first != end_ && is_blank(*first)) ++first;
    const char* stop = parse(first, end_);
    if (stop == nullptr) return false;
    while (stop != end_ && is_blank(*stop)) ++stop;
    if (stop != end_ && *stop != ',') return false;
    advance(stop == end_ ? nullptr : stop);
    return true;
  }

 private:
  void advance(const char* comma) noexcept {
    ++column_;
    if (comma) {
      p_ = comma + 1;
    } else {
      p_ = end_;
      done_ = true;
    }
  }

  std::string_view line_;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::size_t column_ = 0;
  bool done_ = false;
};

}  // namespace sextant::datagen::detail
