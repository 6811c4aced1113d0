#include "templates/matching/text_values.hpp"

#include "core/number_format.hpp"

namespace sextant::matching {

namespace {

void append_escaped(std::string& out, std::string_view bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u >= 0x7f) {
          out += "\\x";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;
        }
    }
  }
}

}  // namespace

void append_int(std::string& out, std::int64_t v) {
  append_number(out, v);
}

void append_double(std::string& out, double v) {
  const std::size_t start = out.size();
  append_number(out, v);
  // "5" would read back as an int64: keep the type visible.
  if (out.find_first_of(".eEn", start) == std::string::npos) out += ".0";
}

void append_quoted(std::string& out, std::string_view bytes) {
  out += '"';
  append_escaped(out, bytes);
  out += '"';
}

void append_value(std::string& out, const Value& v) {
  switch (v.type()) {
    case ValueType::int64:
      append_int(out, v.as_int());
      break;
    case ValueType::float64:
      append_double(out, v.as_double());
      break;
    case ValueType::boolean:
      out += v.as_bool() ? "true" : "false";
      break;
    case ValueType::string:
      append_quoted(out, v.as_string());
      break;
  }
}

std::string format_value(const Value& v) {
  std::string out;
  append_value(out, v);
  return out;
}

std::string escape_bytes(std::string_view bytes) {
  std::string out;
  append_escaped(out, bytes);
  return out;
}

}  // namespace sextant::matching
