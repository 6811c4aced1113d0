#include "datagen/stream_csv.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <ostream>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "datagen/csv_tokens.hpp"
#include "datagen/input_file.hpp"
#include "datagen/plain_digits.hpp"

namespace sextant::datagen {
namespace {

using detail::CsvCells;
using detail::quoted;
using detail::TrailingComma;
using detail::trim;

// Strips one leading '+' (not followed by a sign); false when nothing is left to parse.
bool strip_plus(const char*& first, const char* last) noexcept {
  if (first != last && *first == '+') {
    ++first;
    if (first != last && (*first == '+' || *first == '-')) return false;
  }
  return first != last;
}

// Whole-cell integer. errc{}: ok; result_out_of_range: an integer outside T; else not one.
template <class T>
std::errc parse_integer(std::string_view cell, T& value) noexcept {
  const char* first = cell.data();
  const char* const last = first + cell.size();
  if (!strip_plus(first, last)) return std::errc::invalid_argument;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ptr != last) return std::errc::invalid_argument;
  return ec;
}

enum class Number { ok, not_a_number, not_finite, out_of_range };

// Whole-cell finite floating-point number; underflow rounds towards zero.
template <class T>
Number parse_floating(std::string_view cell, T& value) {
  const char* first = cell.data();
  const char* const last = first + cell.size();
  if (!strip_plus(first, last)) return Number::not_a_number;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ptr != last) return Number::not_a_number;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; strtod tells them apart (rare path).
    const std::string copy(first, last);
    const double wide = std::strtod(copy.c_str(), nullptr);
    if (!(std::fabs(wide) <= static_cast<double>(std::numeric_limits<T>::max()))) return Number::out_of_range;
    value = static_cast<T>(wide);
    return Number::ok;
  }
  if (ec != std::errc{}) return Number::not_a_number;
  return std::isfinite(value) ? Number::ok : Number::not_finite;
}

template <class T>
constexpr std::string_view type_name() noexcept {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, float>) return "float";
  return "double";
}

// ChunkSummary::doubles_from of a chunk whose values are all integers.
constexpr std::size_t no_doubles = std::numeric_limits<std::size_t>::max();

// Where a chunk's rows go: its slices of the output columns (null with values_only).
struct RowSlices {
  window::StreamKey* keys = nullptr;
  std::int64_t* timestamps = nullptr;
  std::int64_t* watermarks = nullptr;
};

// What a chunk found besides its rows, for joining the chunks into the serial parse's result.
struct ChunkSummary {
  std::size_t rows = 0;
  window::StreamKey first_key = 0;
  bool several_keys = false;  // within the chunk
  bool ends_blank = false;    // its last lines are blank: an error if a later chunk holds a row
  // Automatic typing: the chunk's first value parsed as double (no_doubles: none).
  std::size_t doubles_from = no_doubles;
  // Automatic typing: an integer value "-0" before doubles_from, which as a double is -0.0.
  bool negative_zero = false;
};

// The cells of `line`, the first four in `cells`; returns how many there are.
std::size_t cut_cells(std::string_view line, std::string_view (&cells)[4]) noexcept {
  std::size_t count = 0;
  for (CsvCells row(line, TrailingComma::cell); !row.done(); ++count) {
    const std::string_view cell = row.next();
    if (count < 4) cells[count] = cell;
  }
  return count;
}

// Line 1 is a header when none of its four cells is a number.
bool header_cells(const std::string_view (&cells)[4]) {
  for (const std::string_view cell : cells) {
    double probe = 0;
    if (parse_floating(cell, probe) != Number::not_a_number) return false;
  }
  return true;
}

// Whether the first line of `text` is a header, as the parse of line 1 will find.
bool starts_with_header(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  std::string_view cells[4];
  return line.size() <= max_line_bytes && cut_cells(line, cells) == 4 && header_cells(cells);
}

// The plain shape of a row, which generated and exported streams have: `key,ts,value,wm` with
// digits only (a '-' before value and wm), wm possibly empty, no blanks, '\n' or the end of the
// text after it. Such a row is read in one pass over its bytes; any other line, and every error,
// goes cell by cell, so both paths give the same rows and the same errors.
struct PlainRow {
  std::uint64_t key = 0;
  std::int64_t ts = 0;
  std::int64_t wm = 0;
};

// '-'? then plain_digits.
const char* plain_integer(const char* p, const char* end, std::int64_t& value) noexcept {
  const bool negative = p != end && *p == '-';
  std::uint64_t magnitude = 0;
  p = detail::plain_digits(p + (negative ? 1 : 0), end, magnitude);
  if (p != nullptr)
    value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  return p;
}

// A finite number starting with a digit or '-', as std::from_chars reads it (the cell-by-cell
// path's parser, so both agree); nullptr on anything else, underflow included.
template <class T>
const char* plain_floating(const char* p, const char* end, T& value) noexcept {
  if (p == end || (*p != '-' && static_cast<unsigned char>(*p - '0') >= 10)) return nullptr;
  const auto [stop, ec] = std::from_chars(p, end, value);
  return ec == std::errc{} && std::isfinite(value) ? stop : nullptr;
}

// One plain row from `p`: past its '\n' (or the end of the text), or nullptr when the line has
// another shape. `read_value(p, end)` reads the value cell the same way, without storing it.
template <class ReadValue>
const char* plain_row(const char* p, const char* end, PlainRow& row, ReadValue&& read_value) noexcept {
  const auto comma = [end](const char* at) {
    return at != nullptr && at != end && *at == ',' ? at + 1 : nullptr;
  };
  std::uint64_t ts = 0;
  if (!(p = comma(detail::plain_digits(p, end, row.key))) ||
      row.key > std::numeric_limits<window::StreamKey>::max() ||
      !(p = comma(detail::plain_digits(p, end, ts))) || !(p = comma(read_value(p, end))))
    return nullptr;
  row.ts = static_cast<std::int64_t>(ts);
  if (p == end || *p == '\n')
    row.wm = window::no_watermark;
  else if (!(p = plain_integer(p, end, row.wm)))
    return nullptr;
  if (p == end) return p;
  return *p == '\n' ? p + 1 : nullptr;
}

// Parses one chunk of the text: whole lines, the first of them file line `first_line`, rows
// written from the start of the slices. Throws the chunk's first error.
class Parser {
 public:
  Parser(std::string_view chunk, const std::string& origin, const StreamCsvOptions& options,
         std::size_t first_line, RowSlices out)
      : text_(chunk), origin_(origin), options_(options), out_(out), line_(first_line - 1) {}

  template <class T>
  void parse_as(T* values) {
    for_each_row(TypedValues<T>{*this, values});
  }

  // Automatic typing: int64 until the first value that is not an integer, then doubles (their
  // bits in the int64 slots); with `as_double` doubles from the first row.
  void parse_automatic(std::int64_t* slots, bool as_double) {
    if (as_double) chunk_.doubles_from = 0;
    for_each_row(AutomaticValues{*this, slots});
  }

  const ChunkSummary& summary() const noexcept { return chunk_; }

 private:
  // The value column of parse_as<T>. Each reader stores a plain row's value in commit(), once the
  // whole row has been read, and a cell-by-cell row's in cell().
  template <class T>
  struct TypedValues {
    const Parser& parser;
    T* out;
    T pending{};

    const char* plain(const char* p, const char* end) noexcept {
      if constexpr (std::is_integral_v<T>) {
        std::int64_t v = 0;
        p = plain_integer(p, end, v);
        if (p == nullptr || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
          return nullptr;
        pending = static_cast<T>(v);
        return p;
      } else {
        return plain_floating(p, end, pending);
      }
    }
    void commit() noexcept { *out++ = pending; }
    void cell(std::string_view cell) { *out++ = parser.value_cell<T>(cell); }
  };

  // The value column of parse_automatic.
  struct AutomaticValues {
    Parser& parser;
    std::int64_t* slots;
    std::size_t row = 0;
    std::int64_t pending = 0;
    bool pending_negative_zero = false;

    const char* plain(const char* p, const char* end) noexcept {
      if (parser.chunk_.doubles_from != no_doubles) {
        double v = 0;
        const char* const stop = plain_floating(p, end, v);
        pending = std::bit_cast<std::int64_t>(v);
        pending_negative_zero = false;
        return stop;
      }
      const char* const stop = plain_integer(p, end, pending);
      pending_negative_zero = stop != nullptr && pending == 0 && *p == '-';
      return stop;
    }
    void commit() noexcept {
      parser.chunk_.negative_zero |= pending_negative_zero;
      slots[row++] = pending;
    }
    void cell(std::string_view cell) {
      if (parser.chunk_.doubles_from == no_doubles) {
        std::int64_t v = 0;
        if (parse_integer(cell, v) == std::errc{}) {
          parser.chunk_.negative_zero |= v == 0 && cell.front() == '-';
          slots[row++] = v;
          return;
        }
        parser.chunk_.doubles_from = row;
      }
      slots[row++] = std::bit_cast<std::int64_t>(parser.value_cell<double>(cell));  // throws unless finite
    }
  };

  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    throw Error::in_file(origin_, line_, column, what);
  }

  // Splits the text into rows, checks key, ts and wm, and hands the value to `values`.
  template <class Values>
  void for_each_row(Values&& values) {
    const char* const text = text_.data();
    const char* const end = text + text_.size();
    const auto read_value = [&values](const char* p, const char* stop) { return values.plain(p, stop); };
    std::size_t pos = 0;
    std::size_t blank_run = 0;  // first line of the current run of blank lines
    while (pos < text_.size()) {
      ++line_;
      PlainRow plain;
      if (const char* next = plain_row(text + pos, end, plain, read_value);
          next != nullptr && static_cast<std::size_t>(next - text) - pos <= max_line_bytes) {
        if (blank_run != 0) fail_blank_line(blank_run);
        store_row(plain);
        values.commit();
        pos = static_cast<std::size_t>(next - text);
        continue;
      }
      const std::size_t eol = std::min(text_.find('\n', pos), text_.size());
      if (eol - pos > max_line_bytes) detail::throw_line_too_long(origin_, line_);
      const std::string_view line = trim(text_.substr(pos, eol - pos));
      pos = eol + 1;
      if (line.empty()) {
        if (blank_run == 0) blank_run = line_;
        continue;
      }
      if (blank_run != 0) fail_blank_line(blank_run);
      std::string_view cells[4];
      if (!split(line, cells)) continue;  // the header
      store_row(PlainRow{key_cell(cells[0]), timestamp_cell(cells[1]),
                         cells[3].empty() ? window::no_watermark : integer_cell(cells[3], 4, "watermark")});
      values.cell(cells[2]);
    }
    chunk_.ends_blank = blank_run != 0;
  }

  [[noreturn]] void fail_blank_line(std::size_t blank_run) {
    line_ = blank_run;
    fail(0, "blank line inside the data (blank lines are allowed only at the end of the file)");
  }

  // The four trimmed cells of `line`; false for a header line (line 1 without any number).
  bool split(std::string_view line, std::string_view (&cells)[4]) const {
    const std::size_t count = cut_cells(line, cells);
    if (count != 4) fail(0, "expected 4 cells (key,ts,value,wm), found " + std::to_string(count));
    return line_ != 1 || !header_cells(cells);
  }

  std::int64_t timestamp_cell(std::string_view cell) const {
    const std::int64_t ts = integer_cell(cell, 2, "timestamp");
    if (ts < 0) fail(2, "negative timestamp " + std::to_string(ts) + " (timestamps are >= 0)");
    return ts;
  }

  void store_row(const PlainRow& row) {
    const auto key = static_cast<window::StreamKey>(row.key);
    if (chunk_.rows == 0)
      chunk_.first_key = key;
    else if (key != chunk_.first_key)
      chunk_.several_keys = true;
    if (!options_.values_only) {
      out_.keys[chunk_.rows] = key;
      out_.timestamps[chunk_.rows] = row.ts;
      out_.watermarks[chunk_.rows] = row.wm;
    }
    ++chunk_.rows;
  }

  window::StreamKey key_cell(std::string_view cell) const {
    constexpr std::uint64_t max_key = std::numeric_limits<window::StreamKey>::max();
    std::uint64_t key = 0;
    const std::errc ec = parse_integer(cell, key);
    if (ec == std::errc{} && key <= max_key) return static_cast<window::StreamKey>(key);
    std::int64_t negative = 0;
    if (ec != std::errc::invalid_argument || parse_integer(cell, negative) != std::errc::invalid_argument)
      fail(1, "key " + quoted(cell) + " is out of range (valid: 0 .. " + std::to_string(max_key) + ")");
    fail(1, "key " + quoted(cell) + " is not an unsigned integer");
  }

  std::int64_t integer_cell(std::string_view cell, std::size_t column, const char* name) const {
    std::int64_t v = 0;
    const std::errc ec = parse_integer(cell, v);
    if (ec == std::errc{}) return v;
    if (ec == std::errc::result_out_of_range)
      fail(column, std::string(name) + " " + quoted(cell) + " is outside the signed 64-bit range");
    fail(column, std::string(name) + " " + quoted(cell) + " is not an integer");
  }

  template <class T>
  T value_cell(std::string_view cell) const {
    T v{};
    if constexpr (std::is_integral_v<T>) {
      const std::errc ec = parse_integer(cell, v);
      if (ec == std::errc{}) return v;
      if (ec == std::errc::result_out_of_range)
        fail(3, "value " + quoted(cell) + " is outside the " + std::string(type_name<T>()) + " range");
      fail(3, "value " + quoted(cell) + " is not an " + std::string(type_name<T>()));
    } else {
      switch (parse_floating(cell, v)) {
        case Number::ok:
          return v;
        case Number::not_finite:
          fail(3, "value " + quoted(cell) + " is NaN or infinite (bad input)");
        case Number::out_of_range:
          fail(3, "value " + quoted(cell) + " is outside the " + std::string(type_name<T>()) + " range");
        case Number::not_a_number:
          break;
      }
      fail(3, "value " + quoted(cell) + " is not a number");
    }
  }

  std::string_view text_;
  const std::string& origin_;
  const StreamCsvOptions& options_;
  RowSlices out_;
  std::size_t line_;  // the current file line
  ChunkSummary chunk_;
};

// The parse of a text cut into parts of whole lines, one thread each. Every line but a header
// (line 1) and blank lines at the end is a row, so the parts' line counts place each part's rows
// in the output columns.
class ChunkedParse {
 public:
  ChunkedParse(std::vector<std::string_view> parts, const std::string& origin,
               const StreamCsvOptions& options)
      : parts_(std::move(parts)),
        origin_(origin),
        options_(options),
        first_line_(parts_.size() + 1, 1),
        first_row_(parts_.size(), 0),
        summaries_(parts_.size()),
        errors_(parts_.size()) {}

  // The serial parse's result; nullopt when it would throw (with one part: throws its error).
  std::optional<StreamCsv> run() {
    place_parts();
    if (!options_.value_type) return run_automatic();
    switch (*options_.value_type) {
      case ColumnType::int32:
        return run_as<std::int32_t>();
      case ColumnType::int64:
        return run_as<std::int64_t>();
      case ColumnType::float32:
        return run_as<float>();
      case ColumnType::float64:
        return run_as<double>();
    }
    throw Error::internal("parse_stream_csv: unknown value type");
  }

 private:
  // Each part's first file line (counted in parallel) and first row.
  void place_parts() {
    const auto count = static_cast<std::ptrdiff_t>(parts_.size());
#pragma omp parallel for schedule(static, 1) num_threads(team()) if (team() > 1)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      const std::string_view part = parts_[static_cast<std::size_t>(k)];
      const bool open_end = k + 1 == count && !part.empty() && part.back() != '\n';
      first_line_[static_cast<std::size_t>(k) + 1] = detail::count_line_ends(part) + (open_end ? 1 : 0);
    }
    for (std::size_t k = 0; k < parts_.size(); ++k) first_line_[k + 1] += first_line_[k];
    const std::size_t header = !parts_.empty() && starts_with_header(parts_[0]) ? 1 : 0;
    for (std::size_t k = 1; k < parts_.size(); ++k) first_row_[k] = first_line_[k] - 1 - header;
    slots_ = first_line_.back() - 1 - header;
  }

  // The columns, `values` with them, sized for every slot. Zero-filling fresh memory is a good
  // part of the load: each column is filled by a thread of its own, on huge pages where the
  // kernel has them (a fault per 2 MiB instead of per 4 KiB).
  template <class T>
  void allocate(std::vector<T>& values) {
    const int columns = options_.values_only ? 1 : 4;
#pragma omp parallel for schedule(static, 1) num_threads(std::min(columns, team())) if (team() > 1)
    for (int column = 0; column < columns; ++column) {
      switch (column) {
        case 0:
          resize_on_huge_pages(values, slots_);
          break;
        case 1:
          resize_on_huge_pages(out_.keys, slots_);
          break;
        case 2:
          resize_on_huge_pages(out_.timestamps, slots_);
          break;
        default:
          resize_on_huge_pages(out_.watermarks, slots_);
      }
    }
  }

  int team() const noexcept {
    return std::min(static_cast<int>(parts_.size()), omp_get_max_threads());
  }

  RowSlices slices(std::size_t k) {
    if (options_.values_only) return {};
    const std::size_t row = first_row_[k];
    return {out_.keys.data() + row, out_.timestamps.data() + row, out_.watermarks.data() + row};
  }

  // Runs `parse(parser, first_row)` on the parts in `which`, in parallel; false when one failed
  // (with a single part its error is thrown: the serial parse's first error).
  template <class Parse>
  bool parse_parts(const std::vector<std::size_t>& which, Parse&& parse) {
    const auto count = static_cast<std::ptrdiff_t>(which.size());
#pragma omp parallel for schedule(static, 1) num_threads(team()) if (team() > 1)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
      const std::size_t k = which[static_cast<std::size_t>(i)];
      try {
        Parser parser(parts_[k], origin_, options_, first_line_[k], slices(k));
        parse(parser, first_row_[k]);
        summaries_[k] = parser.summary();
      } catch (...) {
        errors_[k] = std::current_exception();
      }
    }
    if (parts_.size() == 1 && errors_[0]) std::rethrow_exception(errors_[0]);
    return std::none_of(errors_.begin(), errors_.end(),
                        [](const std::exception_ptr& e) { return e != nullptr; });
  }

  std::vector<std::size_t> every_part() const {
    std::vector<std::size_t> all(parts_.size());
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
    return all;
  }

  // Joins the parts' rows: false when a blank line precedes a row of a later part (an error of
  // the serial parse that no part sees); else the row count and several_keys.
  bool join_rows() {
    bool blank_before = false;
    const ChunkSummary* first = nullptr;
    rows_ = 0;
    for (const ChunkSummary& part : summaries_) {
      if (part.rows != 0) {
        if (blank_before) return false;
        if (first == nullptr) first = &part;
        out_.several_keys = out_.several_keys || part.several_keys || part.first_key != first->first_key;
      }
      blank_before = blank_before || part.ends_blank;
      rows_ += part.rows;
    }
    if (!options_.values_only) {
      out_.keys.resize(rows_);
      out_.timestamps.resize(rows_);
      out_.watermarks.resize(rows_);
    }
    return true;
  }

  template <class T>
  std::optional<StreamCsv> run_as() {
    std::vector<T> values;
    allocate(values);
    if (!parse_parts(every_part(),
                     [&](Parser& parser, std::size_t row) { parser.parse_as(values.data() + row); }) ||
        !join_rows())
      return std::nullopt;
    values.resize(rows_);
    out_.values = std::move(values);
    return std::move(out_);
  }

  // int64 unless some value is not an integer; then double throughout, as the serial parse
  // gives: integers before the first non-integer converted, every value after it parsed as a
  // double. Converting is the same (both round correctly) but for "-0", which parsed as a double
  // is -0.0: a part after the first non-integer that holds one is parsed again as doubles.
  std::optional<StreamCsv> run_automatic() {
    std::vector<std::int64_t> slots;
    allocate(slots);
    const auto parse_from = [&](bool as_double) {
      return [&slots, as_double](Parser& parser, std::size_t row) {
        parser.parse_automatic(slots.data() + row, as_double);
      };
    };
    if (!parse_parts(every_part(), parse_from(false)) || !join_rows()) return std::nullopt;
    const auto first_double =
        std::find_if(summaries_.begin(), summaries_.end(),
                     [](const ChunkSummary& part) { return part.doubles_from != no_doubles; });
    if (first_double == summaries_.end()) {
      slots.resize(rows_);
      out_.values = std::move(slots);
      return std::move(out_);
    }
    std::vector<std::size_t> again;
    for (auto k = static_cast<std::size_t>(first_double - summaries_.begin()) + 1; k < parts_.size(); ++k)
      if (summaries_[k].negative_zero) again.push_back(k);
    if (!again.empty() && !parse_parts(again, parse_from(true))) return std::nullopt;
    out_.values = to_doubles(slots);
    return std::move(out_);
  }

  // The int64 slots as doubles: a part's integers (before its doubles_from) converted, the
  // rest the bits of doubles.
  std::vector<double> to_doubles(const std::vector<std::int64_t>& slots) const {
    std::vector<double> doubles(rows_);
    const auto count = static_cast<std::ptrdiff_t>(parts_.size());
#pragma omp parallel for schedule(static, 1) num_threads(team()) if (team() > 1)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      const ChunkSummary& part = summaries_[static_cast<std::size_t>(k)];
      const std::size_t row = first_row_[static_cast<std::size_t>(k)];
      const std::size_t integers = std::min(part.doubles_from, part.rows);
      for (std::size_t i = 0; i < integers; ++i) doubles[row + i] = static_cast<double>(slots[row + i]);
      for (std::size_t i = integers; i < part.rows; ++i)
        doubles[row + i] = std::bit_cast<double>(slots[row + i]);
    }
    return doubles;
  }

  std::vector<std::string_view> parts_;
  const std::string& origin_;
  const StreamCsvOptions& options_;
  std::vector<std::size_t> first_line_;  // per part, and one past the last line
  std::vector<std::size_t> first_row_;
  std::vector<ChunkSummary> summaries_;
  std::vector<std::exception_ptr> errors_;
  std::size_t slots_ = 0;  // rows the columns are allocated for: every line but a header
  std::size_t rows_ = 0;
  StreamCsv out_;
};

}  // namespace

namespace detail {

StreamCsv parse_stream_csv_in_chunks(std::string_view text, const std::string& origin,
                                     const StreamCsvOptions& options, int chunks) {
  text = skip_utf8_bom(text);
  if (chunks > 1) {
    std::vector<std::string_view> parts = detail::split_at_lines(text, chunks);
    if (parts.size() > 1)
      if (std::optional<StreamCsv> csv = ChunkedParse(std::move(parts), origin, options).run())
        return std::move(*csv);
  }
  // One part: the serial parse, which throws the first error (errors are the rare path).
  return *ChunkedParse({text}, origin, options).run();
}

}  // namespace detail

StreamCsv parse_stream_csv(std::string_view text, const std::string& origin,
                           const StreamCsvOptions& options) {
  const int chunks = text.size() >= detail::parallel_parse_min_bytes ? omp_get_max_threads() : 1;
  return detail::parse_stream_csv_in_chunks(text, origin, options, chunks);
}

StreamCsv read_stream_csv(const std::string& path, const StreamCsvOptions& options) {
  InputFile file(path);
  return parse_text(file, [&](std::string_view text) { return parse_stream_csv(text, path, options); });
}

void write_stream_csv(std::ostream& out, const StreamCsv& stream) {
  std::string buf(stream_csv_header);
  buf += '\n';
  std::visit(
      [&](const auto& values) {
        const std::size_t n = values.size();
        if (stream.keys.size() != n || stream.timestamps.size() != n || stream.watermarks.size() != n)
          throw Error::internal("write_stream_csv: columns of different lengths");
        for (std::size_t i = 0; i < n; ++i) {
          append_stream_csv_row(buf, stream.keys[i], stream.timestamps[i], values[i], stream.watermarks[i]);
          buf += '\n';
          if (buf.size() > (1u << 20)) {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
          }
        }
      },
      stream.values);
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace sextant::datagen
