#include "datagen/stream_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <type_traits>

#include "core/error.hpp"
#include "datagen/csv_tokens.hpp"
#include "datagen/input_file.hpp"

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

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin, const StreamCsvOptions& options)
      : text_(text), origin_(origin), options_(options) {}

  StreamCsv parse() {
    const auto rows = static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1;
    if (!options_.values_only) {
      out_.keys.reserve(rows);
      out_.timestamps.reserve(rows);
      out_.watermarks.reserve(rows);
    }
    if (options_.value_type) {
      switch (*options_.value_type) {
        case ColumnType::int32:
          return parse_as<std::int32_t>(rows);
        case ColumnType::int64:
          return parse_as<std::int64_t>(rows);
        case ColumnType::float32:
          return parse_as<float>(rows);
        case ColumnType::float64:
          return parse_as<double>(rows);
      }
    }
    // Automatic: int64 until the first value that is not an integer, then double throughout.
    std::vector<std::int64_t> ints;
    std::vector<double> doubles;
    ints.reserve(rows);
    bool as_double = false;
    for_each_row([&](std::string_view cell) {
      if (!as_double) {
        std::int64_t v = 0;
        if (parse_integer(cell, v) == std::errc{}) {
          ints.push_back(v);
          return;
        }
        double d = value_cell<double>(cell);  // throws unless a finite number
        doubles.reserve(rows);
        for (const std::int64_t i : ints) doubles.push_back(static_cast<double>(i));
        ints = {};
        as_double = true;
        doubles.push_back(d);
        return;
      }
      doubles.push_back(value_cell<double>(cell));
    });
    if (as_double)
      out_.values = std::move(doubles);
    else
      out_.values = std::move(ints);
    return std::move(out_);
  }

 private:
  template <class T>
  StreamCsv parse_as(std::size_t rows) {
    std::vector<T> values;
    values.reserve(rows);
    for_each_row([&](std::string_view cell) { values.push_back(value_cell<T>(cell)); });
    out_.values = std::move(values);
    return std::move(out_);
  }

  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    throw Error::in_file(origin_, line_, column, what);
  }

  // Splits the text into rows, checks key, ts and wm, and hands the value cell to `on_value`.
  template <class F>
  void for_each_row(F&& on_value) {
    std::size_t pos = 0;
    std::size_t blank_run = 0;  // first line of the current run of blank lines
    while (pos < text_.size()) {
      const std::size_t eol = std::min(text_.find('\n', pos), text_.size());
      ++line_;
      if (eol - pos > max_line_bytes) detail::throw_line_too_long(origin_, line_);
      const std::string_view line = trim(text_.substr(pos, eol - pos));
      pos = eol + 1;
      if (line.empty()) {
        if (blank_run == 0) blank_run = line_;
        continue;
      }
      if (blank_run != 0) {
        line_ = blank_run;
        fail(0, "blank line inside the data (blank lines are allowed only at the end of the file)");
      }
      std::string_view cells[4];
      if (!split(line, cells)) continue;  // the header
      store_row(cells);
      on_value(cells[2]);
    }
  }

  // The four trimmed cells of `line`; false for a header line (line 1 without any number).
  bool split(std::string_view line, std::string_view (&cells)[4]) const {
    std::size_t count = 0;
    for (CsvCells row(line, TrailingComma::cell); !row.done(); ++count) {
      const std::string_view cell = row.next();
      if (count < 4) cells[count] = cell;
    }
    if (count != 4) fail(0, "expected 4 cells (key,ts,value,wm), found " + std::to_string(count));
    if (line_ != 1) return true;
    for (const std::string_view cell : cells) {
      double probe = 0;
      if (parse_floating(cell, probe) != Number::not_a_number) return true;
    }
    return false;
  }

  void store_row(const std::string_view (&cells)[4]) {
    const window::StreamKey key = key_cell(cells[0]);
    const std::int64_t ts = integer_cell(cells[1], 2, "timestamp");
    if (ts < 0) fail(2, "negative timestamp " + std::to_string(ts) + " (timestamps are >= 0)");
    const std::int64_t wm = cells[3].empty() ? window::no_watermark : integer_cell(cells[3], 4, "watermark");
    if (rows_ == 0)
      first_key_ = key;
    else if (key != first_key_)
      out_.several_keys = true;
    ++rows_;
    if (options_.values_only) return;
    out_.keys.push_back(key);
    out_.timestamps.push_back(ts);
    out_.watermarks.push_back(wm);
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
  StreamCsv out_;
  std::size_t line_ = 0;
  std::size_t rows_ = 0;
  window::StreamKey first_key_ = 0;
};

}  // namespace

StreamCsv parse_stream_csv(std::string_view text, const std::string& origin,
                           const StreamCsvOptions& options) {
  return Parser(detail::skip_utf8_bom(text), origin, options).parse();
}

StreamCsv read_stream_csv(const std::string& path, const StreamCsvOptions& options) {
  InputFile file(path);
  return parse_stream_csv(read_text(file), path, options);
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
