// Taxi-like parsing (paper 003, Section 7.1, after the DIBS taxi benchmark): lines of text, each a
// trip with 2 to 100+ coordinate pairs in WKT form,
//     <trip id>,LINESTRING(<x> <y>, <x> <y>, ...)
// are parsed into (line, x, y) items, then aggregated per line. The pipeline's sources are line
// numbers; its four nodes cut a line's coordinate list into blocks of block_bytes, blocks into
// chunks of chunk_bytes, find the pairs that start in a chunk, and parse each pair:
//   1 line blocks   gain <= ceil(max_line_bytes / block_bytes)
//   2 block chunks  gain <= block_bytes / chunk_bytes
//   3 find pairs    gain <= chunk_bytes / 4 (a pair takes at least 4 bytes with its comma)
//   4 parse pair    gain 1 (exactly)
// A number is [-]digits[.digits] with at most 15 digits; its value is the decimal rounded to a
// double, then to a float. A malformed pair does not stop the pipeline: it travels to the sink as an
// item marked bad (line | bad_mark, the byte offset in x_bits), and aggregate() reports the first one
// with its line and column. The line's frame (id, "LINESTRING(", the closing parenthesis, the length)
// is checked on the host when the lines are split.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_device.hpp"
#include "templates/pipeline/hooks.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::apps::taxi {

inline constexpr std::uint32_t bad_mark = 0x80000000U;
inline constexpr std::uint32_t max_digits = 15;

struct Params {
  const char* text = nullptr;
  std::uint64_t text_bytes = 0;
  const std::uint32_t* body_begin = nullptr;  // per line: offset of its first coordinate byte
  const std::uint32_t* body_end = nullptr;    // per line: offset of its closing parenthesis
  std::uint32_t lines = 0;
  std::uint32_t max_line_bytes = 4096;
  std::uint32_t block_bytes = 512;
  std::uint32_t chunk_bytes = 64;

  template <class Upload>
  Params to_device(Upload& up) const {
    Params d = *this;
    d.text = up(text, text_bytes);
    d.body_begin = up(body_begin, lines);
    d.body_end = up(body_end, lines);
    return d;
  }
};

// A stretch of one line: where it starts and which line it is in.
struct Span {
  std::uint32_t offset;
  std::uint32_t line;
};

struct Coordinate {
  std::uint32_t line;  // | bad_mark for a malformed pair
  float x;             // for a malformed pair: the pair's byte offset, as bits (float_to_bits)
  float y;
  friend bool operator==(const Coordinate& a, const Coordinate& b) {
    return a.line == b.line && std::memcmp(&a.x, &b.x, sizeof a.x) == 0 &&
           std::memcmp(&a.y, &b.y, sizeof a.y) == 0;
  }
};

// A malformed pair keeps its byte offset in x's bits (exact, unlike a float's value).
SEXTANT_HD_INLINE float bits_to_float(std::uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
inline std::uint32_t float_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

SEXTANT_HD_INLINE bool is_space(char c) {
  return c == ' ' || c == '\t';
}
SEXTANT_HD_INLINE bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

struct LineBlocks {
  static constexpr std::string_view name = "line blocks";
  using Input = std::uint32_t;
  using Output = Span;
  using Params = taxi::Params;
  static SEXTANT_HD unsigned gain_limit(const Params& p) {
    return (p.max_line_bytes + p.block_bytes - 1) / p.block_bytes;
  }
  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& line, Emit& out) {
    for (std::uint32_t at = p.body_begin[line]; at < p.body_end[line]; at += p.block_bytes)
      out.push(Span{at, line});
  }
};

struct BlockChunks {
  static constexpr std::string_view name = "block chunks";
  using Input = Span;
  using Output = Span;
  using Params = taxi::Params;
  static SEXTANT_HD unsigned gain_limit(const Params& p) { return p.block_bytes / p.chunk_bytes; }
  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& block, Emit& out) {
    const std::uint32_t end = p.body_end[block.line];
    for (std::uint32_t at = block.offset; at < end && at < block.offset + p.block_bytes; at += p.chunk_bytes)
      out.push(Span{at, block.line});
  }
};

struct FindPairs {
  static constexpr std::string_view name = "find pairs";
  using Input = Span;
  using Output = Span;
  using Params = taxi::Params;
  static SEXTANT_HD unsigned gain_limit(const Params& p) { return p.chunk_bytes / 4; }
  // A pair starts at the first byte of the list and after each comma. A chunk with more starts than
  // valid pairs fit in it is malformed (",,,,"): it yields one bad item instead.
  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& chunk, Emit& out) {
    const std::uint32_t begin = p.body_begin[chunk.line];
    const std::uint32_t end = p.body_end[chunk.line];
    const std::uint32_t stop = chunk.offset + p.chunk_bytes < end ? chunk.offset + p.chunk_bytes : end;
    unsigned starts = 0;
    for (std::uint32_t at = chunk.offset; at < stop; ++at)
      starts += (at == begin || p.text[at - 1] == ',') ? 1U : 0U;
    if (starts > p.chunk_bytes / 4) {
      out.push(Span{chunk.offset, chunk.line | bad_mark});
      return;
    }
    for (std::uint32_t at = chunk.offset; at < stop; ++at)
      if (at == begin || p.text[at - 1] == ',') out.push(Span{at, chunk.line});
  }
};

// Parses [-]digits[.digits] at text[at, end); returns false when malformed. Advances at.
SEXTANT_HD_INLINE bool parse_number(const char* text, std::uint32_t& at, std::uint32_t end, float& value) {
  bool negative = false;
  if (at < end && text[at] == '-') {
    negative = true;
    ++at;
  }
  std::uint64_t mantissa = 0;
  std::uint32_t digits = 0, fraction = 0;
  bool dot = false;
  while (at < end && (is_digit(text[at]) || (text[at] == '.' && !dot))) {
    if (text[at] == '.') {
      if (digits == 0) return false;  // a digit before the point
      dot = true;
      ++at;
      if (at >= end || !is_digit(text[at])) return false;
      continue;
    }
    if (++digits > max_digits) return false;
    mantissa = mantissa * 10 + static_cast<std::uint64_t>(text[at] - '0');
    if (dot) ++fraction;
    ++at;
  }
  if (digits == 0) return false;
  double scale = 1;
  for (std::uint32_t i = 0; i < fraction; ++i) scale *= 10;
  const double v = static_cast<double>(mantissa) / scale;  // both exact: one correctly rounded division
  value = static_cast<float>(negative ? -v : v);
  return true;
}

struct ParsePair {
  static constexpr std::string_view name = "parse pair";
  using Input = Span;
  using Output = Coordinate;
  using Params = taxi::Params;
  static constexpr unsigned gain_limit = 1;
  static constexpr GainKind gain_kind = GainKind::exact;
  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& pair, Emit& out) {
    const std::uint32_t line = pair.line & ~bad_mark;
    const float where = bits_to_float(pair.offset);
    if ((pair.line & bad_mark) != 0) {
      out.push(Coordinate{line | bad_mark, where, 0.0f});
      return;
    }
    const std::uint32_t end = p.body_end[line];
    std::uint32_t at = pair.offset;
    while (at < end && is_space(p.text[at])) ++at;
    float x = 0, y = 0;
    bool ok = parse_number(p.text, at, end, x);
    if (ok) {
      const std::uint32_t gap = at;
      while (at < end && is_space(p.text[at])) ++at;
      ok = at > gap && parse_number(p.text, at, end, y);
    }
    while (ok && at < end && is_space(p.text[at])) ++at;
    ok = ok && (at == end || (p.text[at] == ',' && at + 1 < end));  // no trailing comma
    out.push(ok ? Coordinate{line, x, y} : Coordinate{line | bad_mark, where, 0.0f});
  }
};

using TaxiPipeline = Pipeline<LineBlocks, BlockChunks, FindPairs, ParsePair>;

// The text and where each line's coordinate list is.
struct Problem {
  std::string text;
  std::vector<std::uint32_t> line_begin;  // offset of each line
  std::vector<std::uint32_t> body_begin;
  std::vector<std::uint32_t> body_end;
  std::string origin;  // the file name, or how it was generated
  std::uint32_t max_line_bytes = 4096;
};

// Splits `text` into lines (LF or CRLF; a last line without LF is a line) and checks each frame:
// Error (bad_input) naming origin:line:column for a line without "<id>,LINESTRING(" or its closing
// parenthesis, with an empty list, or longer than max_line_bytes; an empty text is an error too.
Problem parse_lines(std::string text, std::string origin, std::uint32_t max_line_bytes = 4096);

// The generator: `lines` trips with 2 .. max_pairs pairs (mostly near mean_pairs), coordinates a
// random walk around Manhattan with six decimals. Deterministic by seed.
struct GeneratorConfig {
  std::uint32_t lines = 10000;
  std::uint32_t mean_pairs = 45;
  std::uint32_t max_pairs = 150;
  std::uint64_t seed = 1;
};
std::string generate_text(const GeneratorConfig& config);

Instance<TaxiPipeline> make_instance(const Problem& problem);

struct LineAggregate {
  std::uint32_t line = 0;  // 0-based
  std::uint32_t pairs = 0;
  float min_x = 0, min_y = 0, max_x = 0, max_y = 0;
};

// The per-line aggregate of the sink's items (any order). Throws Error (bad_input) naming
// origin:line:column of the first malformed pair.
std::vector<LineAggregate> aggregate(const Problem& problem, const std::vector<Coordinate>& items);

}  // namespace sextant::pipeline::apps::taxi
