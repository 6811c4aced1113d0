#include "datagen/csv.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <ostream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "datagen/csv_tokens.hpp"
#include "datagen/input_file.hpp"
#include "datagen/plain_float.hpp"

namespace sextant::datagen {
namespace {

using detail::CsvCells;
using detail::is_blank;
using detail::quoted;
using detail::TrailingComma;
using detail::trim;

enum class NumberStatus { ok, not_a_number };

// Whole-cell float (the cell already trimmed); a leading '+' is accepted. Out-of-range
// values come back rounded: infinite on overflow, towards zero on underflow.
NumberStatus parse_number(std::string_view cell, float& value) {
  const char* first = cell.data();
  const char* const last = first + cell.size();
  if (first != last && *first == '+') {
    ++first;
    if (first != last && (*first == '+' || *first == '-')) return NumberStatus::not_a_number;
  }
  if (first == last) return NumberStatus::not_a_number;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ptr != last) return NumberStatus::not_a_number;
  if (ec == std::errc{}) return NumberStatus::ok;
  if (ec != std::errc::result_out_of_range) return NumberStatus::not_a_number;
  // from_chars reports underflow and overflow alike; strtod tells them apart (rare path).
  const std::string copy(first, last);
  const double wide = std::strtod(copy.c_str(), nullptr);
  value = std::fabs(wide) > std::numeric_limits<float>::max()
              ? std::copysign(std::numeric_limits<float>::infinity(), static_cast<float>(wide > 0 ? 1 : -1))
              : static_cast<float>(wide);
  return NumberStatus::ok;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin, const CsvOptions& options)
      : text_(text), origin_(origin), options_(options) {
    // Blank lines are tolerated at the end only: stop after the last non-blank character.
    std::size_t end = text_.size();
    while (end > 0 && (is_blank(text_[end - 1]) || text_[end - 1] == '\n')) --end;
    text_ = text_.substr(0, end);
  }

  // The rows of one chunk of the file (whole lines; its first line is file line `first_line`),
  // d values each, written to `out`.
  Parser(std::string_view chunk, const std::string& origin, const CsvOptions& options, int d,
         std::size_t first_line, std::size_t first_data_line)
      : text_(chunk),
        origin_(origin),
        options_(options),
        line_number_(first_line - 1),
        first_data_line_(first_data_line),
        d_(d) {}

  void parse_rows(float* out) {
    out_ = out;
    std::string_view line;
    while (next_line(line)) parse_row(line);
  }

  Dataset parse(int chunks) {
    std::string_view line;
    if (!next_line(line)) throw Error::in_file(origin_, 0, 0, "empty file: no data rows");

    std::size_t header_cells = 0;
    std::size_t header_line = 0;
    if (is_header(line)) {
      header_cells = CsvCells(line, TrailingComma::dropped).count();
      header_line = line_number_;
      if (!next_line(line)) throw Error::in_file(origin_, header_line, 0, "a header line but no data rows");
    }

    first_data_line_ = line_number_;
    const std::size_t cells = CsvCells(line, TrailingComma::dropped).count();
    if (cells > static_cast<std::size_t>(max_columns))
      throw Error::in_file(origin_, line_number_, max_columns + 1,
                           "row has " + std::to_string(cells) + " values; " + std::to_string(max_columns) +
                               " columns at most");
    if (header_line != 0 && header_cells != cells)
      throw Error::in_file(origin_, header_line, 0,
                           "header has " + std::to_string(header_cells) +
                               " names but the first data row (line " + std::to_string(first_data_line_) +
                               ") has " + std::to_string(cells) + " values");
    d_ = static_cast<int>(cells);
    detail::check_preference_count(options_.preferences, d_);
    set_signs();

    // Every line from the first data row on is one row (a blank one is an error, and the text
    // ends with its last row): the chunks' line counts place each chunk's rows in the result.
    const std::size_t body = static_cast<std::size_t>(line.data() - text_.data());
    const std::string_view rows = text_.substr(body);
    const std::vector<std::string_view> parts = detail::split_at_lines(rows, chunks);
    std::vector<std::size_t> first_row(parts.size() + 1, 0);
    const int team = std::min(static_cast<int>(parts.size()), omp_get_max_threads());
#pragma omp parallel for schedule(static, 1) num_threads(team) if (team > 1)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(parts.size()); ++k) {
      const std::string_view part = parts[static_cast<std::size_t>(k)];
      first_row[static_cast<std::size_t>(k) + 1] =
          detail::count_line_ends(part) + (static_cast<std::size_t>(k) + 1 == parts.size() ? 1 : 0);
    }
    for (std::size_t k = 0; k < parts.size(); ++k) first_row[k + 1] += first_row[k];
    const std::size_t n = first_row.back();
    AlignedBuffer<float> values(n * cells);  // every value is written by exactly one chunk
    // Each chunk keeps its first error; the earliest chunk's is the file's first.
    std::vector<std::exception_ptr> errors(parts.size());
#pragma omp parallel for schedule(static, 1) num_threads(team) if (team > 1)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(parts.size()); ++k) {
      const auto at = static_cast<std::size_t>(k);
      try {
        Parser chunk(parts[at], origin_, options_, d_, first_data_line_ + first_row[at], first_data_line_);
        chunk.set_signs();
        chunk.parse_rows(values.data() + first_row[at] * cells);
      } catch (...) {
        errors[at] = std::current_exception();
      }
    }
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    return Dataset::adopt(n, d_, std::move(values), options_.preferences, origin_);
  }

 private:
  // Values are stored in minimisation form: a max column's are negated as they are parsed.
  void set_signs() {
    sign_.fill(1.0f);
    for (std::size_t j = 0; j < options_.preferences.size(); ++j)
      sign_[j] = options_.preferences[j] == Preference::max ? -1.0f : 1.0f;
  }

  // The next line without its '\n' (a '\r' before it is left to trim()); false at the end.
  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;  // text_ never ends with '\n' (see the constructor)
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_number_;
    if (line.size() > max_line_bytes) detail::throw_line_too_long(origin_, line_number_);
    if (trim(line).empty())
      throw Error::in_file(origin_, line_number_, 0, "blank line (allowed only at the end of the file)");
    return true;
  }

  bool is_header(std::string_view line) const {
    switch (options_.header) {
      case CsvHeader::present:
        return true;
      case CsvHeader::absent:
        return false;
      case CsvHeader::automatic:
        break;
    }
    for (CsvCells cells(line, TrailingComma::dropped); !cells.done();) {
      float ignored = 0;
      if (parse_number(cells.next(), ignored) == NumberStatus::ok) return false;
    }
    return true;
  }

  [[noreturn]] void ragged(std::size_t cells) const {
    throw Error::in_file(origin_, line_number_, std::min(cells, static_cast<std::size_t>(d_)) + 1,
                         "row has " + std::to_string(cells) + (cells == 1 ? " value" : " values") +
                             ", expected " + std::to_string(d_) + " (from line " +
                             std::to_string(first_data_line_) + ")");
  }

  // One pass per row: parse_plain_float (else from_chars) reads each number in place and must stop at a comma
  // (blanks allowed) or the row's end. Anything unusual (a '+', blanks inside, underflow, a bad cell) goes to
  // cell_value(), which takes the whole cell and either accepts it or says why not.
  void parse_row(std::string_view line) {
    CsvCells cells(line, TrailingComma::dropped);
    const auto d = static_cast<std::size_t>(d_);
    float value = 0;
    const auto read_finite = [&value](const char* first, const char* last) -> const char* {
      if (const char* next = detail::parse_plain_float(first, last, value)) return next;
      const auto [next, ec] = std::from_chars(first, last, value);
      return ec == std::errc{} && std::isfinite(value) ? next : nullptr;
    };
    for (std::size_t index = 0;; ++index) {
      if (index >= d) ragged(cells.count());
      if (!cells.next_in_place(read_finite)) value = cell_value(cells.next(), index);
      *out_++ = value * sign_[index];
      if (cells.done()) {
        if (index + 1 != d) ragged(index + 1);
        return;
      }
    }
  }

  float cell_value(std::string_view cell, std::size_t index) const {
    float value = 0;
    if (parse_number(cell, value) != NumberStatus::ok)
      throw Error::in_file(
          origin_, line_number_, index + 1,
          cell.empty() ? std::string("empty cell; expected a number") : "not a number: " + quoted(cell));
    if (!std::isfinite(value))
      throw Error::in_file(origin_, line_number_, index + 1,
                           "value " + quoted(cell) + " is " + (std::isnan(value) ? "NaN" : "infinite") +
                               " as a float; every value must be finite");
    return value;
  }

  std::string_view text_;
  const std::string& origin_;
  const CsvOptions& options_;
  std::size_t pos_ = 0;
  std::size_t line_number_ = 0;
  std::size_t first_data_line_ = 0;
  int d_ = 0;
  std::array<float, max_columns> sign_;
  float* out_ = nullptr;  // the next value of the rows being parsed
};

std::string join(const std::vector<Preference>& preferences) {
  std::string text;
  for (const Preference p : preferences) {
    if (!text.empty()) text += ',';
    text += p == Preference::max ? "max" : "min";
  }
  return text;
}

}  // namespace

namespace detail {

void check_preference_count(const std::vector<Preference>& preferences, int d) {
  if (preferences.empty() || static_cast<int>(preferences.size()) == d) return;
  throw Error::argument(
      "--prefer", join(preferences), std::to_string(d) + " comma-separated entries, each 'min' or 'max'",
      "has " + std::to_string(preferences.size()) + " entries for " + std::to_string(d) + " columns");
}

}  // namespace detail

Dataset parse_csv(std::string_view text, const std::string& origin, const CsvOptions& options) {
  const int chunks = text.size() >= detail::parallel_parse_min_bytes ? omp_get_max_threads() : 1;
  return detail::parse_csv_in_chunks(text, origin, options, chunks);
}

Dataset detail::parse_csv_in_chunks(std::string_view text, const std::string& origin,
                                    const CsvOptions& options, int chunks) {
  return Parser(detail::skip_utf8_bom(text), origin, options).parse(chunks);
}

Dataset read_csv(const std::string& path, const CsvOptions& options) {
  InputFile file(path);
  return parse_text(file, [&](std::string_view text) { return parse_csv(text, path, options); });
}

void write_csv(std::ostream& out, const Dataset& data) {
  constexpr std::size_t flush_at = std::size_t{1} << 16;
  std::string buffer;
  buffer.reserve(flush_at + 32 * max_columns);
  const int d = data.dims();
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int j = 0; j < d; ++j) {
      char cell[32];
      const auto result =
          std::to_chars(cell, cell + sizeof cell, data.input_value(static_cast<PointId>(i), j));
      if (j != 0) buffer += ',';
      buffer.append(cell, result.ptr);
    }
    buffer += '\n';
    if (buffer.size() >= flush_at) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void write_csv(const std::string& path, const Dataset& data) {
  AtomicFile file(path);
  write_csv(file.stream(), data);
  file.commit();
}

}  // namespace sextant::datagen
