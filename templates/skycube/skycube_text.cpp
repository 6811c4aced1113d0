#include "templates/skycube/skycube_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/ordered_text.hpp"

namespace sextant::skycube {
namespace {

constexpr std::string_view header_prefix = "# sextant skycube";
constexpr std::string_view header_form = "'# sextant skycube d=<d> n=<n> max_level=<L>'";

std::vector<std::string_view> split_whitespace(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while (true) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    const std::size_t end = std::min(line.find_first_of(" \t", pos), line.size());
    tokens.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return tokens;
}

std::optional<std::uint64_t> parse_unsigned(std::string_view token) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc{} || end != token.data() + token.size()) return std::nullopt;
  return v;
}

struct Header {
  int d = 0;
  std::size_t n = 0;
  int max_level = 0;
};

}  // namespace

void write_skycube_text(std::ostream& out, const HashCube& cube, TeamRef team) {
  if (cube.dims() == 0)
    throw Error(ErrorKind::bad_argument, "write_skycube_text: the cube is empty (default-constructed)");
  out << header_prefix << " d=" << cube.dims() << " n=" << cube.point_count()
      << " max_level=" << cube.max_level() << '\n';
  // Blocks of 32 masks share a HashCube word.
  write_in_order(
      out, std::size_t{full_mask(cube.dims())} + 1, 32, team,
      [&cube](std::size_t begin, std::size_t end, std::string& text) {
        for (std::size_t m = std::max<std::size_t>(begin, 1); m < end; ++m) {
          if (!cube.computed(static_cast<Mask>(m))) continue;
          const std::vector<PointId> ids = cube.skyline(static_cast<Mask>(m));
          // Written in place after room for the longest line: no append (and no call) per id.
          const std::size_t old = text.size();
          text.resize(old + 2 * std::numeric_limits<std::uint64_t>::digits10 + 4 + 11 * ids.size());
          char* p = text.data() + old;
          char* const last = text.data() + text.size();
          p = std::to_chars(p, last, m).ptr;
          *p++ = ' ';
          p = std::to_chars(p, last, ids.size()).ptr;
          for (const PointId id : ids) {
            *p++ = ' ';
            p = std::to_chars(p, last, id).ptr;
          }
          *p++ = '\n';
          text.resize(static_cast<std::size_t>(p - text.data()));
        }
      },
      "write_skycube_text: writing the skycube");
}

Lattice read_skycube_text(std::istream& in, const std::string& origin) {
  std::optional<Header> header;
  Lattice lattice;
  Mask previous = 0;  // last subspace read
  std::size_t line_number = 0;
  std::string raw;

  // The next computed subspace after m, or 0 when there is none.
  const auto next_computed = [&](Mask m) -> Mask {
    for (Mask s = m + 1; s <= full_mask(header->d); ++s)
      if (level(s) <= header->max_level) return s;
    return 0;
  };

  while (std::getline(in, raw)) {
    ++line_number;
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto fail = [&](const std::string& what) { throw Error::in_file(origin, line_number, 0, what); };

    if (line.starts_with(header_prefix)) {
      if (header) fail("second skycube header (only one is allowed)");
      Header h;
      bool has_d = false, has_n = false, has_level = false;
      for (const std::string_view token : split_whitespace(line.substr(header_prefix.size()))) {
        const std::size_t eq = token.find('=');
        const std::string_view key = token.substr(0, eq);
        const auto value = eq == std::string_view::npos ? std::nullopt : parse_unsigned(token.substr(eq + 1));
        if (!value)
          fail("bad header field '" + std::string(token) + "' (expected " + std::string(header_form) + ")");
        if (key == "d" && *value >= 1 && *value <= static_cast<std::uint64_t>(max_skycube_columns)) {
          h.d = static_cast<int>(*value);
          has_d = true;
        } else if (key == "d") {
          fail("header d=" + std::to_string(*value) + " out of range (valid: 1.." +
               std::to_string(max_skycube_columns) + "; a skycube needs 2^d-1 subspaces)");
        } else if (key == "n" && *value <= 0xFFFFFFFEu) {
          h.n = static_cast<std::size_t>(*value);
          has_n = true;
        } else if (key == "n") {
          fail("header n=" + std::to_string(*value) + " too large for 32-bit point ids");
        } else if (key == "max_level" && *value <= 64) {
          h.max_level = static_cast<int>(*value);
          has_level = true;
        } else {
          fail("bad header field '" + std::string(token) + "' (expected " + std::string(header_form) + ")");
        }
      }
      if (!has_d || !has_n || !has_level)
        fail("incomplete header (expected " + std::string(header_form) + ")");
      if (h.max_level < 1 || h.max_level > h.d)
        fail("header max_level=" + std::to_string(h.max_level) + " out of range (valid: 1.." +
             std::to_string(h.d) + ")");
      header = h;
      lattice = Lattice(h.d, h.n, h.max_level);
      continue;
    }
    if (line.starts_with('#')) continue;  // comment
    const std::vector<std::string_view> tokens = split_whitespace(line);
    if (tokens.empty()) continue;  // blank line
    if (!header) fail("subspace line before the header " + std::string(header_form));

    const auto mask = parse_unsigned(tokens[0]);
    if (!mask) fail("bad subspace mask '" + std::string(tokens[0]) + "' (expected an unsigned integer)");
    if (*mask == 0 || *mask > full_mask(header->d) || level(static_cast<Mask>(*mask)) > header->max_level)
      fail("subspace " + std::to_string(*mask) + " is not a computed subspace (valid: 1.." +
           std::to_string(full_mask(header->d)) + " with at most " + std::to_string(header->max_level) +
           " columns)");
    const auto m = static_cast<Mask>(*mask);
    if (m <= previous)
      fail("subspace " + std::to_string(m) + " after subspace " + std::to_string(previous) +
           " (subspaces must be strictly ascending)");
    if (const Mask expected = next_computed(previous); m != expected)
      fail("subspace " + std::to_string(expected) + " is missing (found " + std::to_string(m) + " instead)");
    previous = m;

    if (tokens.size() < 2) fail("subspace " + std::to_string(m) + " has no skyline count");
    const auto count = parse_unsigned(tokens[1]);
    if (!count) fail("bad skyline count '" + std::string(tokens[1]) + "' (expected an unsigned integer)");
    if (*count != tokens.size() - 2)
      fail("subspace " + std::to_string(m) + " says " + std::to_string(*count) + " ids but lists " +
           std::to_string(tokens.size() - 2));
    std::vector<PointId>& ids = lattice.skyline(m);
    ids.reserve(tokens.size() - 2);
    for (std::size_t t = 2; t < tokens.size(); ++t) {
      const auto id = parse_unsigned(tokens[t]);
      if (!id) fail("bad point id '" + std::string(tokens[t]) + "' (expected an unsigned integer)");
      if (*id >= header->n)
        fail("point id " + std::to_string(*id) + " out of range (valid: 0.." +
             (header->n == 0 ? std::string("none, n=0") : std::to_string(header->n - 1)) + ")");
      if (!ids.empty() && *id <= ids.back())
        fail("point ids of subspace " + std::to_string(m) + " are not strictly ascending");
      ids.push_back(static_cast<PointId>(*id));
    }
  }
  if (in.bad()) throw Error::io(origin, "read failed");
  if (!header) throw Error::in_file(origin, line_number, 0, "no skycube header " + std::string(header_form));
  if (const Mask expected = next_computed(previous); expected != 0)
    throw Error::in_file(origin, line_number, 0,
                         "input ends before subspace " + std::to_string(expected) + " (truncated skycube?)");
  return lattice;
}

}  // namespace sextant::skycube
