// Numbers as text, exactly: integers in decimal, floating point as the shortest text that reads
// back bit-identical (std::to_chars), independent of the locale.
#pragma once

#include <charconv>
#include <string>
#include <type_traits>

namespace sextant {

template <class T>
requires std::is_arithmetic_v<T>
void append_number(std::string& out, T value) {
  char buf[40];  // the longest double is 24 characters, the longest int64 20
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, ec == std::errc{} ? end : buf);
}

template <class T>
requires std::is_arithmetic_v<T> std::string format_number(T value) {
  std::string out;
  append_number(out, value);
  return out;
}

}  // namespace sextant
