// Small text helpers shared by the CSV readers of datagen/ (internal).
#pragma once

#include <string_view>

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

}  // namespace sextant::datagen::detail
