#include "apps/pipelines/taxi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "apps/pipelines/hash.hpp"
#include "core/error.hpp"

namespace sextant::pipeline::apps::taxi {

namespace {

constexpr std::string_view frame = "LINESTRING(";

[[noreturn]] void bad_line(const std::string& origin, std::size_t line, std::size_t column,
                           const std::string& what) {
  throw Error::in_file(origin, line, column, what);
}

}  // namespace

Problem parse_lines(std::string text, std::string origin, std::uint32_t max_line_bytes) {
  if (max_line_bytes < 16 || max_line_bytes > (1U << 20))
    throw Error::argument("--max-line", std::to_string(max_line_bytes), "16 .. 1048576 bytes");
  if (text.size() >= std::numeric_limits<std::uint32_t>::max())
    throw Error::in_file(origin, 0, 0, "larger than 4 GiB; split the input");
  Problem p;
  p.max_line_bytes = max_line_bytes;
  std::size_t start = 0;
  std::size_t number = 0;
  while (start < text.size()) {
    ++number;
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::size_t stop = nl;
    if (stop > start && text[stop - 1] == '\r') --stop;
    const std::string_view line(text.data() + start, stop - start);
    if (line.size() > max_line_bytes)
      bad_line(origin, number, max_line_bytes + 1,
               "line of " + std::to_string(line.size()) + " bytes, longer than --max-line " +
                   std::to_string(max_line_bytes));
    if (line.empty()) bad_line(origin, number, 1, "empty line (expected <id>,LINESTRING(<x> <y>, ...))");
    std::size_t i = 0;
    while (i < line.size() && is_digit(line[i])) ++i;
    if (i == 0) bad_line(origin, number, 1, "expected a trip id (digits)");
    if (i >= line.size() || line[i] != ',') bad_line(origin, number, i + 1, "expected ',' after the trip id");
    ++i;
    if (line.substr(i, frame.size()) != frame) bad_line(origin, number, i + 1, "expected LINESTRING(");
    i += frame.size();
    if (line.back() != ')') bad_line(origin, number, line.size(), "expected ')' at the end of the line");
    if (i + 1 >= line.size()) bad_line(origin, number, i + 1, "no coordinate pairs");
    p.line_begin.push_back(static_cast<std::uint32_t>(start));
    p.body_begin.push_back(static_cast<std::uint32_t>(start + i));
    p.body_end.push_back(static_cast<std::uint32_t>(start + line.size() - 1));
    start = nl + 1;
  }
  if (p.line_begin.empty()) throw Error::in_file(origin, 0, 0, "no lines: the input stream is empty");
  p.text = std::move(text);
  p.origin = std::move(origin);
  return p;
}

std::string generate_text(const GeneratorConfig& c) {
  if (c.lines < 1) throw Error::argument("--lines", std::to_string(c.lines), ">= 1");
  if (c.max_pairs < 2 || c.max_pairs > 170)
    throw Error::argument("--max-pairs", std::to_string(c.max_pairs),
                          "2 .. 170 (lines stay under 4096 bytes)");
  if (c.mean_pairs < 2 || c.mean_pairs > c.max_pairs)
    throw Error::argument("--mean-pairs", std::to_string(c.mean_pairs), "2 .. --max-pairs");
  std::string out;
  out.reserve(static_cast<std::size_t>(c.lines) * (c.mean_pairs * 23 + 24));
  std::uint64_t state = mix64(c.seed);
  const auto draw = [&state] { return mix64(state++); };
  const auto unit = [&] { return static_cast<double>(draw() >> 11) * 0x1.0p-53; };
  char buf[64];
  for (std::uint32_t line = 0; line < c.lines; ++line) {
    // Pairs: 2 + an exponential around the mean, capped.
    const double e = -std::log(1.0 - unit()) * (c.mean_pairs - 2);
    const auto pairs = static_cast<std::uint32_t>(std::min<double>(c.max_pairs, 2 + std::floor(e)));
    // Micro-degrees, a walk from a random start in Manhattan.
    auto x = static_cast<std::int64_t>(-74020000 + static_cast<std::int64_t>(draw() % 120000));
    auto y = static_cast<std::int64_t>(40700000 + static_cast<std::int64_t>(draw() % 180000));
    std::snprintf(buf, sizeof buf, "%llu,LINESTRING(", static_cast<unsigned long long>(1000000 + line));
    out += buf;
    for (std::uint32_t k = 0; k < pairs; ++k) {
      x += static_cast<std::int64_t>(draw() % 801) - 400;
      y += static_cast<std::int64_t>(draw() % 801) - 400;
      const auto ax = static_cast<unsigned long long>(x < 0 ? -x : x);
      std::snprintf(buf, sizeof buf, "%s%s%llu.%06llu %llu.%06llu", k == 0 ? "" : ", ", x < 0 ? "-" : "",
                    ax / 1000000, ax % 1000000, static_cast<unsigned long long>(y / 1000000),
                    static_cast<unsigned long long>(y % 1000000));
      out += buf;
    }
    out += ")\n";
  }
  return out;
}

Instance<TaxiPipeline> make_instance(const Problem& problem) {
  Params params;
  params.text = problem.text.data();
  params.text_bytes = problem.text.size();
  params.body_begin = problem.body_begin.data();
  params.body_end = problem.body_end.data();
  params.lines = static_cast<std::uint32_t>(problem.body_begin.size());
  params.max_line_bytes = problem.max_line_bytes;
  Instance<TaxiPipeline> in;
  in.params = make_pack(params, params, params, params);
  in.sources = {nullptr, problem.body_begin.size()};
  return in;
}

std::vector<LineAggregate> aggregate(const Problem& problem, const std::vector<Coordinate>& items) {
  std::vector<LineAggregate> out(problem.body_begin.size());
  std::uint64_t first_bad = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t l = 0; l < out.size(); ++l) out[l].line = static_cast<std::uint32_t>(l);
  for (const Coordinate& c : items) {
    if ((c.line & bad_mark) != 0) {
      first_bad = std::min<std::uint64_t>(first_bad, float_to_bits(c.x));
      continue;
    }
    if (c.line >= out.size()) throw Error::internal("taxi: an item of line " + std::to_string(c.line));
    LineAggregate& a = out[c.line];
    if (a.pairs == 0) {
      a.min_x = a.max_x = c.x;
      a.min_y = a.max_y = c.y;
    } else {
      a.min_x = std::min(a.min_x, c.x);
      a.max_x = std::max(a.max_x, c.x);
      a.min_y = std::min(a.min_y, c.y);
      a.max_y = std::max(a.max_y, c.y);
    }
    ++a.pairs;
  }
  if (first_bad != std::numeric_limits<std::uint64_t>::max()) {
    const auto line = static_cast<std::size_t>(
        std::upper_bound(problem.line_begin.begin(), problem.line_begin.end(), first_bad) -
        problem.line_begin.begin());
    const std::size_t column = static_cast<std::size_t>(first_bad - problem.line_begin[line - 1]) + 1;
    std::size_t stop = problem.text.find_first_of(",)\n", static_cast<std::size_t>(first_bad));
    if (stop == std::string::npos) stop = problem.text.size();
    throw Error::in_file(
        problem.origin, line, column,
        "malformed coordinate pair '" +
            problem.text.substr(static_cast<std::size_t>(first_bad),
                                std::min<std::size_t>(stop - static_cast<std::size_t>(first_bad), 40)) +
            "' (expected <x> <y>, numbers [-]digits[.digits] of at most 15 digits)");
  }
  return out;
}

}  // namespace sextant::pipeline::apps::taxi
