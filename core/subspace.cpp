#include "core/subspace.hpp"

#include <charconv>
#include <string>

#include "core/error.hpp"

namespace sextant {

std::vector<Mask> masks_at_level(int d, int lvl) {
  std::vector<Mask> out;
  if (lvl <= 0 || lvl > d) return out;
  // Gosper's hack in 64 bits: the next larger integer with the same popcount.
  std::uint64_t m = (std::uint64_t{1} << lvl) - 1;
  const std::uint64_t limit = std::uint64_t{1} << d;
  while (m < limit) {
    out.push_back(static_cast<Mask>(m));
    const std::uint64_t c = m & (~m + 1);
    const std::uint64_t r = m + c;
    m = (((r ^ m) >> 2) / c) | r;
  }
  return out;
}

namespace {
// Error::argument's layout; the value is a number, so it goes unquoted and reads the same when a
// file reader puts it after "corrupt ... header: ".
[[noreturn]] void bad_shape(std::string_view parameter, std::int64_t value, const std::string& what,
                            const std::string& valid) {
  throw Error(ErrorKind::bad_argument, std::string(parameter) + " = " + std::to_string(value) + ": " + what +
                                           " (valid: " + valid + ")");
}
}  // namespace

void check_skycube_columns(std::int64_t d) {
  if (d < 1 || d > max_skycube_columns)
    bad_shape("d", d,
              "a skycube needs 2^d-1 subspaces; d <= " + std::to_string(max_skycube_columns) + " supported",
              "1.." + std::to_string(max_skycube_columns));
}

void check_skycube_shape(std::int64_t d, std::int64_t max_level) {
  check_skycube_columns(d);
  if (max_level < 1 || max_level > d)
    bad_shape("max_level", max_level, "out of range", "1.." + std::to_string(d) + " (the column count)");
}

Mask parse_column_list(const char* parameter, std::string_view text, int d) {
  const std::string valid = "comma-separated column indices 0.." + std::to_string(d - 1);
  if (text.empty()) throw Error::argument(parameter, text, valid, "empty subspace");
  Mask m = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    int column = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), column);
    if (ec != std::errc{} || end != item.data() + item.size() || column < 0 || column >= d)
      throw Error::argument(parameter, text, valid, "bad column '" + std::string(item) + "'");
    m |= Mask{1} << column;
    pos = comma + 1;
  }
  return m;
}

}  // namespace sextant
