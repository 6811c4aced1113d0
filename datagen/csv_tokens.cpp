#include "datagen/csv_tokens.hpp"

#include <algorithm>
#include <cstdint>

namespace sextant::datagen::detail {

std::string quoted(std::string_view cell) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  out.append(cell.substr(0, max_shown));
  if (cell.size() > max_shown) out += "...";
  return out + "'";
}

std::vector<std::string_view> split_at_lines(std::string_view text, int chunks) {
  std::vector<std::string_view> parts;
  const auto want = static_cast<std::size_t>(std::max(chunks, 1));
  std::size_t begin = 0;
  for (std::size_t k = 1; k <= want && begin < text.size(); ++k) {
    std::size_t end = text.size();
    if (k < want) {
      const std::size_t nl = text.find('\n', std::max(begin, k * text.size() / want));
      end = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    parts.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return parts;
}

// An 8-bit count per block of 255 bytes lets the compiler compare 32 or 64 bytes at a time
// (std::count, with its size_t count, is several times slower).
std::size_t count_line_ends(std::string_view text) noexcept {
  std::size_t total = 0;
  for (std::size_t begin = 0; begin < text.size(); begin += 255) {
    const std::size_t end = std::min(text.size(), begin + 255);
    std::uint8_t count = 0;
    for (std::size_t i = begin; i < end; ++i) count += text[i] == '\n';
    total += count;
  }
  return total;
}

}  // namespace sextant::datagen::detail
