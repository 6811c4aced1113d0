#include "datagen/pubsub_text.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <unordered_map>

#include "core/error.hpp"
#include "datagen/input_file.hpp"
#include "datagen/pubsub_binary.hpp"
#include "templates/matching/text_values.hpp"

namespace sextant::datagen {

using matching::EventBatch;
using matching::FilterSet;
using matching::Op;
using matching::RawValue;
using matching::ValueType;

namespace {

bool name_start(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool name_char(char c) noexcept {
  return name_start(c) || (c >= '0' && c <= '9') || c == '.';
}
bool digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

// Bytes of the valid UTF-8 sequence starting at s[0] (s.size() >= 1), or 0.
std::size_t utf8_sequence(std::string_view s) noexcept {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  std::size_t n;
  std::uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (b(i) & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

// One line of the text format.
class LineParser {
 public:
  LineParser(std::string_view line, const std::string& origin, std::size_t line_number)
      : s_(line), origin_(origin), line_(line_number) {}

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Error::in_file(origin_, line_, at + 1, what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail(pos_, what); }

  void skip_space() noexcept {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool at_end() noexcept {
    skip_space();
    return pos_ == s_.size();
  }
  bool accept(char c) noexcept {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!accept(c)) fail(std::string("expected ") + what + found());
  }
  std::string found() const {
    if (pos_ >= s_.size()) return " at the end of the line";
    const auto u = static_cast<unsigned char>(s_[pos_]);
    if (u < 0x20 || u >= 0x7f) return ", found byte 0x" + hex(u);
    return ", found '" + std::string(1, s_[pos_]) + "'";
  }
  static std::string hex(unsigned v) {
    static constexpr char digits[] = "0123456789abcdef";
    return std::string{digits[(v >> 4) & 15], digits[v & 15]};
  }

  // A word of [A-Za-z0-9_.]: a keyword or a name.
  std::string_view word() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::size_t position() const noexcept { return pos_; }

  std::string_view name() {
    skip_space();
    const std::size_t start = pos_;
    if (pos_ >= s_.size() || !name_start(s_[pos_]))
      fail("expected a name ([A-Za-z_][A-Za-z0-9_.]*)" + found());
    const std::string_view n = word();
    if (n.size() > matching::max_name_bytes)
      fail(start, "a name of " + std::to_string(n.size()) + " bytes (at most " +
                      std::to_string(matching::max_name_bytes) + ")");
    return n;
  }

  std::uint64_t unsigned_number(const char* what, std::uint64_t max) {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
    if (pos_ == start) fail(std::string("expected ") + what + " (an unsigned integer)" + found());
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s_.data() + start, s_.data() + pos_, v);
    (void)p;
    if (ec != std::errc{} || v > max)
      fail(start, std::string(what) + " " + std::string(s_.substr(start, pos_ - start)) +
                      " out of range (0 .. " + std::to_string(max) + ")");
    return v;
  }

  Op op() {
    skip_space();
    const std::size_t start = pos_;
    if (pos_ < s_.size() && name_start(s_[pos_])) {
      const std::string_view w = word();
      if (w == "prefix") return Op::prefix;
      if (w == "suffix") return Op::suffix;
      if (w == "substring") return Op::substring;
      if (w == "exists") return Op::exists;
      fail(start, "unknown operator '" + std::string(w) +
                      "' (valid: =, !=, <, <=, >, >=, prefix, suffix, substring, exists)");
    }
    const auto two = [&](char a, char b) {
      return pos_ + 1 < s_.size() && s_[pos_] == a && s_[pos_ + 1] == b;
    };
    if (two('!', '=')) return pos_ += 2, Op::ne;
    if (two('<', '=')) return pos_ += 2, Op::le;
    if (two('>', '=')) return pos_ += 2, Op::ge;
    if (two('=', '=')) fail(start, "unknown operator '==' (equality is '=')");
    if (pos_ < s_.size() && s_[pos_] == '=') return ++pos_, Op::eq;
    if (pos_ < s_.size() && s_[pos_] == '<') return ++pos_, Op::lt;
    if (pos_ < s_.size() && s_[pos_] == '>') return ++pos_, Op::gt;
    fail("expected an operator (=, !=, <, <=, >, >=, prefix, suffix, substring, exists)" + found());
  }

  // A value into (type, raw), strings appended to `arena`; `value_start` is where it began.
  void value(ValueType& type, RawValue& raw, std::string& arena, std::size_t& value_start) {
    skip_space();
    value_start = pos_;
    if (pos_ >= s_.size())
      fail("expected a value (a number, true, false or a \"string\") at the end of the line");
    const char c = s_[pos_];
    if (c == '"') {
      type = ValueType::string;
      raw = quoted(arena);
      return;
    }
    if (name_start(c)) {
      const std::string_view w = word();
      if (w == "true" || w == "false") {
        type = ValueType::boolean;
        raw = {w == "true" ? 1u : 0u, 0};
        return;
      }
      if (w == "nan" || w == "NaN" || w == "inf" || w == "infinity" || w == "Infinity")
        fail(value_start, "'" + std::string(w) + "' is not a value: NaN and infinities are bad input");
      fail(value_start, "expected a value (a number, true, false or a \"string\"), found '" + std::string(w) +
                            "' (strings need double quotes)");
    }
    number(type, raw);
  }

  void number(ValueType& type, RawValue& raw) {
    const std::size_t start = pos_;
    bool negative = false;
    if (s_[pos_] == '+' || s_[pos_] == '-') negative = s_[pos_++] == '-';
    const std::size_t digits_start = pos_;
    bool real = false;
    while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
    bool any_digit = pos_ > digits_start;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      real = true;
      ++pos_;
      const std::size_t f = pos_;
      while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
      any_digit = any_digit || pos_ > f;
    }
    if (!any_digit) fail(start, "expected a value (a number, true, false or a \"string\")" + found_at(start));
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      real = true;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      const std::size_t e = pos_;
      while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
      if (pos_ == e) fail(start, "a number with an empty exponent");
    }
    if (pos_ < s_.size() && (name_char(s_[pos_]) || s_[pos_] == '"'))
      fail(start, "a malformed number '" + std::string(s_.substr(start, pos_ + 1 - start)) + "'");
    const std::string_view body = s_.substr(digits_start, pos_ - digits_start);
    if (!real) {
      std::uint64_t magnitude = 0;
      const auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), magnitude);
      (void)p;
      const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
      if (ec != std::errc{} || magnitude > limit)
        fail(start, "integer " + std::string(s_.substr(start, pos_ - start)) +
                        " out of the int64 range (write a double such as 1e20 for larger numbers)");
      type = ValueType::int64;
      raw = {negative ? ~magnitude + 1 : magnitude, 0};
      return;
    }
    double v = 0;
    const auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec == std::errc::result_out_of_range) {
      // from_chars also reports underflow this way: a tiny number is not bad input, infinity is.
      if (!body.empty() && std::strtod(std::string(body).c_str(), nullptr) == 0.0) {
        v = 0.0;
      } else {
        fail(start, "number " + std::string(s_.substr(start, pos_ - start)) + " is beyond the double range");
      }
    } else if (ec != std::errc{} || p != body.data() + body.size()) {
      fail(start, "a malformed number '" + std::string(s_.substr(start, pos_ - start)) + "'");
    }
    if (!std::isfinite(v))
      fail(start, "number " + std::string(s_.substr(start, pos_ - start)) + " is beyond the double range");
    type = ValueType::float64;
    raw = {std::bit_cast<std::uint64_t>(negative ? -v : v), 0};
  }

  std::string found_at(std::size_t at) const {
    if (at >= s_.size()) return " at the end of the line";
    return ", found '" + std::string(1, s_[at]) + "'";
  }

  RawValue quoted(std::string& arena) {
    const std::size_t open = pos_++;
    const std::size_t begin = arena.size();
    while (true) {
      if (pos_ >= s_.size()) fail(open, "a string without its closing quote");
      const char c = s_[pos_];
      const auto u = static_cast<unsigned char>(c);
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c == '\\') {
        if (pos_ + 1 >= s_.size()) fail(pos_, "a backslash at the end of the line");
        const char e = s_[pos_ + 1];
        switch (e) {
          case '"':
            arena += '"';
            break;
          case '\\':
            arena += '\\';
            break;
          case 'n':
            arena += '\n';
            break;
          case 't':
            arena += '\t';
            break;
          case 'r':
            arena += '\r';
            break;
          case 'x': {
            const auto hexval = [](char h) -> int {
              if (h >= '0' && h <= '9') return h - '0';
              if (h >= 'a' && h <= 'f') return h - 'a' + 10;
              if (h >= 'A' && h <= 'F') return h - 'A' + 10;
              return -1;
            };
            const int hi = pos_ + 2 < s_.size() ? hexval(s_[pos_ + 2]) : -1;
            const int lo = pos_ + 3 < s_.size() ? hexval(s_[pos_ + 3]) : -1;
            if (hi < 0 || lo < 0) fail(pos_, "\\x needs two hex digits (\\x00 .. \\xff)");
            arena += static_cast<char>(hi * 16 + lo);
            pos_ += 2;
            break;
          }
          default:
            fail(pos_, std::string("unknown escape '\\") +
                           (static_cast<unsigned char>(e) < 0x20 ? "?" : std::string(1, e)) +
                           "' (valid: \\\" \\\\ \\n \\t \\r \\xHH)");
        }
        pos_ += 2;
        continue;
      }
      if (u < 0x20 || u == 0x7f)
        fail(pos_, "a raw control byte 0x" + hex(u) + " in a string (write it as \\x" + hex(u) + ")");
      if (u >= 0x80) {
        const std::size_t n = utf8_sequence(s_.substr(pos_));
        if (n == 0)
          fail(pos_, "byte 0x" + hex(u) + " is not valid UTF-8 (write arbitrary bytes as \\xHH, e.g. \\x" +
                         hex(u) + ")");
        arena.append(s_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      arena += c;
      ++pos_;
    }
    return {begin, arena.size() - begin};
  }

 private:
  std::string_view s_;
  const std::string& origin_;
  std::size_t line_;
  std::size_t pos_ = 0;
};

// Calls f(line, number) for every line that is neither blank nor a comment.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  text = detail::skip_utf8_bom(text);
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
    if (first == line.size() || line[first] == '#') continue;
    f(line, number);
  }
}

}  // namespace

FilterSet parse_filters(std::string_view text, const std::string& origin) {
  FilterSet out;
  std::unordered_map<matching::FilterId, std::size_t> first_line;
  for_each_line(text, [&](std::string_view line, std::size_t number) {
    LineParser p(line, origin, number);
    const std::size_t keyword_at = (p.skip_space(), p.position());
    const std::string_view keyword = p.word();
    if (keyword != "filter")
      p.fail(keyword_at,
             keyword == "event"
                 ? "an event line in a subscriptions file (expected 'filter <id> <interface>: ...')"
                 : "expected 'filter <id> <interface>: <constraints>'");
    const std::size_t id_at = (p.skip_space(), p.position());
    const matching::FilterId id = p.unsigned_number("a filter id", ~std::uint64_t{0});
    const auto interface =
        static_cast<matching::InterfaceId>(p.unsigned_number("an interface id", 0xFFFFFFFFull));
    p.expect(':', "':' after the interface id");
    if (p.at_end()) p.fail("an empty filter (a filter needs at least one constraint)");
    do {
      const std::string_view name = p.name();
      const Op op = p.op();
      if (op == Op::exists) {
        out.add_constraint(out.names.intern(name), op, ValueType::int64, {});
        continue;
      }
      ValueType type{};
      RawValue raw;
      std::size_t value_at = 0;
      p.value(type, raw, out.strings, value_at);
      if (!matching::op_accepts(op, type))
        p.fail(value_at, "type mismatch: operator " + std::string(matching::to_string(op)) +
                             " does not take a " + std::string(matching::to_string(type)) + " (a " +
                             std::string(matching::to_string(type)) + " takes " +
                             std::string(matching::ops_for(type)) + ")");
      out.add_constraint(out.names.intern(name), op, type, raw);
    } while (p.accept(','));
    if (!p.at_end()) p.fail("expected ',' or the end of the line" + p.found());
    if (const auto [it, fresh] = first_line.try_emplace(id, number); !fresh)
      p.fail(id_at, "duplicate filter id " + std::to_string(id) + " (first on line " +
                        std::to_string(it->second) + ")");
    out.end_filter(id, interface);
  });
  return out;
}

EventBatch parse_events(std::string_view text, const std::string& origin) {
  EventBatch out;
  for_each_line(text, [&](std::string_view line, std::size_t number) {
    LineParser p(line, origin, number);
    const std::size_t keyword_at = (p.skip_space(), p.position());
    const std::string_view keyword = p.word();
    if (keyword != "event")
      p.fail(keyword_at, keyword == "filter"
                             ? "a filter line in an events file (expected 'event [<id>]: ...')"
                             : "expected 'event [<id>]: <name> = <value>, ...'");
    matching::EventId id = out.size();
    if (!p.accept(':')) {
      id = p.unsigned_number("an event id", ~std::uint64_t{0});
      p.expect(':', "':' after the event id");
    }
    if (!p.at_end()) {
      do {
        const std::string_view name = p.name();
        p.expect('=', "'=' after the attribute's name (an event holds name = value pairs)");
        ValueType type{};
        RawValue raw;
        std::size_t value_at = 0;
        p.value(type, raw, out.strings, value_at);
        out.add_attribute(out.names.intern(name), type, raw);
      } while (p.accept(','));
      if (!p.at_end()) p.fail("expected ',' or the end of the line" + p.found());
    }
    out.end_event(id);
  });
  return out;
}

namespace {

void append_raw_value(std::string& out, ValueType type, RawValue v, std::string_view arena) {
  switch (type) {
    case ValueType::int64:
      matching::append_int(out, static_cast<std::int64_t>(v.a));
      break;
    case ValueType::float64:
      matching::append_double(out, std::bit_cast<double>(v.a));
      break;
    case ValueType::boolean:
      out += v.a != 0 ? "true" : "false";
      break;
    case ValueType::string:
      matching::append_quoted(out, arena.substr(v.a, v.b));
      break;
  }
}

}  // namespace

void append_filter_line(std::string& out, const FilterSet& filters, std::size_t i) {
  out += "filter ";
  out += std::to_string(filters.ids[i]);
  out += ' ';
  out += std::to_string(filters.interfaces[i]);
  out += ':';
  for (std::uint64_t c = filters.offsets[i]; c < filters.offsets[i + 1]; ++c) {
    out += c == filters.offsets[i] ? " " : ", ";
    out += filters.names.name(filters.constraint_name[c]);
    out += ' ';
    out += matching::to_string(filters.constraint_op[c]);
    if (filters.constraint_op[c] == Op::exists) continue;
    out += ' ';
    append_raw_value(out, filters.constraint_type[c], filters.constraint_value[c], filters.strings);
  }
}

void append_event_line(std::string& out, const EventBatch& events, std::size_t i) {
  out += "event ";
  out += std::to_string(events.ids[i]);
  out += ':';
  for (std::uint64_t a = events.offsets[i]; a < events.offsets[i + 1]; ++a) {
    out += a == events.offsets[i] ? " " : ", ";
    out += events.names.name(events.attribute_name[a]);
    out += " = ";
    append_raw_value(out, events.attribute_type[a], events.attribute_value[a], events.strings);
  }
}

void write_filters_text(std::ostream& out, const FilterSet& filters) {
  std::string buffer;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    append_filter_line(buffer, filters, i);
    buffer += '\n';
    if (buffer.size() > (1u << 20)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void write_events_text(std::ostream& out, const EventBatch& events) {
  std::string buffer;
  for (std::size_t i = 0; i < events.size(); ++i) {
    append_event_line(buffer, events, i);
    buffer += '\n';
    if (buffer.size() > (1u << 20)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

FilterSet read_filters(const std::string& path) {
  InputFile file(path);
  if (file.peek(4) == pubsub_filters_magic) return read_filters_binary(file);
  return parse_filters(read_text(file), path);
}

EventBatch read_events(const std::string& path) {
  InputFile file(path);
  if (file.peek(4) == pubsub_events_magic) return read_events_binary(file);
  return parse_events(read_text(file), path);
}

}  // namespace sextant::datagen
