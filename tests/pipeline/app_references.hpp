// Plain sequential implementations of the four pipeline applications, written from their
// specifications (apps/pipelines/*.hpp comments) without the pipeline code: recursion and loops, a
// std::map word index for BLAST, std::strtod for Taxi. They produce the sink's items in input order
// (source index, then emission order).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apps/pipelines/blast.hpp"
#include "apps/pipelines/hash.hpp"
#include "apps/pipelines/nqueens.hpp"
#include "apps/pipelines/synthetic.hpp"
#include "apps/pipelines/taxi.hpp"

namespace sextant::pipeline::testing {

// ---- synthetic: node k keeps candidate c_j = mix(h + j), j < u_k, when (c_j >> 32) < threshold_k,
// with h = mix^(1 + work_k)(x ^ salt_k), salt_k = mix(seed_k ^ 0x5bd1e995 (k + 1)), seed_k =
// mix(seed * 4 + k), threshold_k = round(g_k / u_k * 2^32).
inline void synthetic_children(const apps::synthetic::Config& c, std::size_t k, std::uint64_t x,
                               std::vector<std::uint64_t>& out) {
  if (k == 4) {
    out.push_back(x);
    return;
  }
  const std::uint64_t seed = apps::mix64(c.seed * 4 + k);
  const std::uint64_t salt = apps::mix64(seed ^ (0x5bd1e995ULL * (k + 1)));
  const auto threshold = static_cast<std::uint64_t>(std::llround(c.gains[k] / c.limits[k] * 4294967296.0));
  std::uint64_t h = apps::mix64(x ^ salt);
  for (std::uint32_t w = 0; w < c.work[k]; ++w) h = apps::mix64(h);
  for (std::uint32_t j = 0; j < c.limits[k]; ++j) {
    const std::uint64_t child = apps::mix64(h + j);
    if ((child >> 32) < threshold) synthetic_children(c, k + 1, child, out);
  }
}

inline std::vector<std::uint64_t> synthetic_reference(const apps::synthetic::Config& c) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t x = 0; x < c.sources; ++x) synthetic_children(c, 0, x, out);
  return out;
}

// Outputs per node (inputs of node k + 1), for the instrumentation tests.
inline std::vector<std::uint64_t> synthetic_node_outputs(const apps::synthetic::Config& c) {
  std::vector<std::uint64_t> counts(4, 0);
  std::vector<std::uint64_t> level;
  for (std::uint64_t x = 0; x < c.sources; ++x) level.push_back(x);
  for (std::size_t k = 0; k < 4; ++k) {
    std::vector<std::uint64_t> next;
    apps::synthetic::Config one = c;
    for (const std::uint64_t x : level) {
      // Children of x at node k alone.
      const std::uint64_t seed = apps::mix64(c.seed * 4 + k);
      const std::uint64_t salt = apps::mix64(seed ^ (0x5bd1e995ULL * (k + 1)));
      const auto threshold =
          static_cast<std::uint64_t>(std::llround(c.gains[k] / c.limits[k] * 4294967296.0));
      std::uint64_t h = apps::mix64(x ^ salt);
      for (std::uint32_t w = 0; w < c.work[k]; ++w) h = apps::mix64(h);
      for (std::uint32_t j = 0; j < c.limits[k]; ++j) {
        const std::uint64_t child = apps::mix64(h + j);
        if ((child >> 32) < threshold) next.push_back(child);
      }
    }
    counts[k] = next.size();
    level.swap(next);
  }
  return counts;
}

// ---- N-Queens: backtracking over rows, columns in increasing order, checking every earlier row.
inline void queens(std::uint32_t n, std::vector<std::uint32_t>& cols,
                   std::vector<std::vector<std::uint32_t>>& out) {
  const std::uint32_t row = static_cast<std::uint32_t>(cols.size());
  if (row == n) {
    out.push_back(cols);
    return;
  }
  for (std::uint32_t c = 0; c < n; ++c) {
    bool ok = true;
    for (std::uint32_t r = 0; r < row && ok; ++r) {
      const std::int64_t dc = static_cast<std::int64_t>(cols[r]) - c;
      ok = cols[r] != c && dc != static_cast<std::int64_t>(row - r) &&
           -dc != static_cast<std::int64_t>(row - r);
    }
    if (!ok) continue;
    cols.push_back(c);
    queens(n, cols, out);
    cols.pop_back();
  }
}

inline std::vector<std::vector<std::uint32_t>> nqueens_reference(std::uint32_t n) {
  std::vector<std::vector<std::uint32_t>> out;
  std::vector<std::uint32_t> cols;
  queens(n, cols, out);
  return out;
}

// ---- BLAST: every database word against a map of the query's words.
inline std::vector<apps::blast::Hit> blast_reference(const apps::blast::Problem& p) {
  const apps::blast::Settings& s = p.settings;
  std::map<std::string, std::vector<std::uint32_t>> words;
  for (std::size_t q = 0; q + s.k <= p.query.size(); ++q)
    words[std::string(reinterpret_cast<const char*>(p.query.data()) + q, s.k)].push_back(
        static_cast<std::uint32_t>(q));
  const auto at = [](const std::vector<std::uint8_t>& v, std::int64_t i) {
    return v[static_cast<std::size_t>(i)];
  };
  std::vector<apps::blast::Hit> out;
  const auto dlen = static_cast<std::int64_t>(p.db.size());
  const auto qlen = static_cast<std::int64_t>(p.query.size());
  const auto k = static_cast<std::int64_t>(s.k);
  for (std::int64_t d = 0; d + k <= dlen; ++d) {
    const auto found = words.find(std::string(reinterpret_cast<const char*>(p.db.data()) + d, s.k));
    if (found == words.end() || found->second.size() > s.max_occurrences) continue;
    for (const std::uint32_t q32 : found->second) {
      const std::int64_t q = q32;
      std::int64_t matches = 0;
      for (std::int64_t i = 1; i <= s.window; ++i)
        if (d - i >= 0 && q - i >= 0) matches += at(p.db, d - i) == at(p.query, q - i);
      for (std::int64_t i = 0; i < s.window; ++i)
        if (d + k + i < dlen && q + k + i < qlen) matches += at(p.db, d + k + i) == at(p.query, q + k + i);
      if (matches < s.small_min) continue;
      // X-drop to the right, then to the left.
      std::int64_t score = 0, best_right = 0, right = 0;
      for (std::int64_t i = 0; d + k + i < dlen && q + k + i < qlen; ++i) {
        score += at(p.db, d + k + i) == at(p.query, q + k + i) ? s.reward : -s.penalty;
        if (score > best_right) {
          best_right = score;
          right = i + 1;
        }
        if (score < best_right - s.x_drop) break;
      }
      std::int64_t best_left = 0, left = 0;
      score = 0;
      for (std::int64_t i = 1; d - i >= 0 && q - i >= 0; ++i) {
        score += at(p.db, d - i) == at(p.query, q - i) ? s.reward : -s.penalty;
        if (score > best_left) {
          best_left = score;
          left = i;
        }
        if (score < best_left - s.x_drop) break;
      }
      const std::int64_t total = k * s.reward + best_right + best_left;
      if (total >= s.min_score)
        out.push_back({static_cast<std::uint32_t>(d - left), static_cast<std::uint32_t>(q - left),
                       static_cast<std::uint32_t>(left + k + right), static_cast<std::int32_t>(total)});
    }
  }
  return out;
}

// ---- Taxi: split each line's list at commas, each pair at spaces, numbers through strtod.
struct TaxiReference {
  std::vector<apps::taxi::Coordinate> items;
  std::optional<std::pair<std::size_t, std::size_t>> first_bad;  // 1-based line and column
};

inline bool taxi_number(const std::string& token, float& value) {
  std::size_t i = token[0] == '-' ? 1 : 0;
  std::size_t digits = 0, dots = 0;
  for (std::size_t j = i; j < token.size(); ++j) {
    if (token[j] == '.') {
      if (++dots > 1 || j == i || j + 1 == token.size()) return false;
    } else if (token[j] >= '0' && token[j] <= '9') {
      ++digits;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > 15) return false;
  value = static_cast<float>(std::strtod(token.c_str(), nullptr));
  return true;
}

inline TaxiReference taxi_reference(const std::string& text) {
  TaxiReference r;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    ++line;
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string s = text.substr(start, nl - start);
    if (!s.empty() && s.back() == '\r') s.pop_back();
    const std::size_t open = s.find('(');
    const std::size_t body = open + 1;
    const std::string list = s.substr(body, s.size() - 1 - body);
    std::size_t from = 0;
    while (true) {
      std::size_t comma = list.find(',', from);
      const bool last = comma == std::string::npos;
      if (last) comma = list.size();
      const std::string pair = list.substr(from, comma - from);
      std::vector<std::string> parts;
      std::string cur;
      for (const char ch : pair) {
        if (ch == ' ' || ch == '\t') {
          if (!cur.empty()) parts.push_back(cur);
          cur.clear();
        } else {
          cur += ch;
        }
      }
      if (!cur.empty()) parts.push_back(cur);
      float x = 0, y = 0;
      const bool trailing_comma = !last && comma + 1 == list.size();
      if (parts.size() == 2 && taxi_number(parts[0], x) && taxi_number(parts[1], y) && !trailing_comma) {
        r.items.push_back({static_cast<std::uint32_t>(line - 1), x, y});
      } else if (!r.first_bad) {
        r.first_bad = std::make_pair(line, body + from + 1);
      }
      if (last) break;
      from = comma + 1;
      if (from == list.size()) break;
    }
    start = nl + 1;
  }
  return r;
}

}  // namespace sextant::pipeline::testing
