#include "datagen/csv_tokens.hpp"

namespace sextant::datagen::detail {

std::string quoted(std::string_view cell) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  out.append(cell.substr(0, max_shown));
  if (cell.size() > max_shown) out += "...";
  return out + "'";
}

}  // namespace sextant::datagen::detail
