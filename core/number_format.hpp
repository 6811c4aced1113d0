// Numbers as text, exactly: integers in decimal, floating point as the shortest text that reads
// back bit-identical (std::to_chars), independent of the locale.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <type_traits>

namespace sextant {

// Room for any number below: the longest double is 24 characters, the longest int64 20.
inline constexpr std::size_t number_chars = 25;

// Writes `value` at `at` (number_chars free there) and returns the end of its text. Writers of
// many numbers fill a buffer with it, sparing a string append per number.
template <class T>
requires std::is_arithmetic_v<T>
char* write_number(char* at, T value) noexcept {
  const auto [end, ec] = std::to_chars(at, at + number_chars, value);
  return ec == std::errc{} ? end : at;
}

template <class T>
requires std::is_arithmetic_v<T>
void append_number(std::string& out, T value) {
  char buf[number_chars];
  out.append(buf, write_number(buf, value));
}

template <class T>
requires std::is_arithmetic_v<T> std::string format_number(T value) {
  std::string out;
  append_number(out, value);
  return out;
}

}  // namespace sextant
