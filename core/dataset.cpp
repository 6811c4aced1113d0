#include "core/dataset.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace sextant {

std::vector<Preference> parse_preferences(const char* parameter, std::string_view text, int d) {
  const std::string valid = std::to_string(d) + " comma-separated entries, each 'min' or 'max'";
  std::vector<Preference> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    if (item == "min") {
      out.push_back(Preference::min);
    } else if (item == "max") {
      out.push_back(Preference::max);
    } else {
      throw Error::argument(parameter, text, valid, "bad entry '" + std::string(item) + "'");
    }
    pos = comma + 1;
  }
  if (static_cast<int>(out.size()) != d)
    throw Error::argument(
        parameter, text, valid,
        "has " + std::to_string(out.size()) + " entries for " + std::to_string(d) + " columns");
  return out;
}

namespace {

[[noreturn]] void not_finite(const std::string& origin, std::size_t i, int j, float v) {
  throw Error(ErrorKind::bad_input, origin + ": row " + std::to_string(i) + ", column " + std::to_string(j) +
                                        ": value is " + (std::isnan(v) ? "NaN" : "infinite") +
                                        "; every value must be finite");
}

// Blocks of values checked with integer operations only, which the compiler vectorises (a compare
// folded into a flag does not): the exponent field plus one ulp of it reaches the sign bit only
// when the field is all ones (infinite or NaN). The error names the first bad value, found again
// in its block.
void check_finite(const std::string& origin, std::size_t n, int d, const float* values) {
  constexpr std::uint32_t exponent = 0x7F800000;
  constexpr std::uint32_t exponent_one = 0x00800000;
  constexpr std::uint32_t sign = 0x80000000;
  constexpr std::size_t block = 1024;
  const std::size_t count = n * static_cast<std::size_t>(d);
  for (std::size_t begin = 0; begin < count; begin += block) {
    const std::size_t end = std::min(count, begin + block);
    std::uint32_t flags = 0;
    for (std::size_t i = begin; i < end; ++i)
      flags |= (std::bit_cast<std::uint32_t>(values[i]) & exponent) + exponent_one;
    if ((flags & sign) != 0)
      for (std::size_t i = begin; i < end; ++i)
        if (!std::isfinite(values[i])) not_finite(origin, i / d, static_cast<int>(i % d), values[i]);
  }
}

}  // namespace

Dataset::Dataset(std::size_t n, int d, std::vector<Preference> preferences, std::string origin)
    : n_(n), d_(d), preferences_(std::move(preferences)), origin_(std::move(origin)) {
  if (d < 1 || d > max_columns)
    throw Error::argument("d", std::to_string(d), "1.." + std::to_string(max_columns),
                          "unsupported column count");
  if (n > std::size_t{0xFFFFFFFEu})
    throw Error::argument("n", std::to_string(n), "at most 4294967294 points",
                          "too many points for 32-bit ids");
  if (preferences_.empty()) preferences_.assign(static_cast<std::size_t>(d), Preference::min);
  if (static_cast<int>(preferences_.size()) != d)
    throw Error::argument("preferences", std::to_string(preferences_.size()) + " entries",
                          std::to_string(d) + " entries", "one preference per column");
}

Dataset::Dataset(std::size_t n, int d, std::span<const float> values, std::vector<Preference> preferences,
                 std::string origin)
    : Dataset(n, d, std::move(preferences), std::move(origin)) {
  if (values.size() != n * static_cast<std::size_t>(d))
    throw Error::internal("Dataset: " + std::to_string(values.size()) + " values for " + std::to_string(n) +
                          " x " + std::to_string(d));
  values_ = AlignedBuffer<float>(values.size());
  data_ = values_.data();
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) {
      const float v = values[i * d + j];
      if (!std::isfinite(v)) not_finite(origin_, i, j, v);
      values_[i * d + j] = preferences_[j] == Preference::max ? -v : v;
    }
  }
}

Dataset Dataset::view(std::size_t n, int d, std::span<const float> values, std::string origin) {
  Dataset out(n, d, {}, std::move(origin));
  if (values.size() != n * static_cast<std::size_t>(d))
    throw Error::internal("Dataset::view: " + std::to_string(values.size()) + " values for " +
                          std::to_string(n) + " x " + std::to_string(d));
  check_finite(out.origin_, n, d, values.data());
  out.data_ = values.data();
  return out;
}

bool Dataset::rows_straddle_lines(const float* values, int d) noexcept {
  const std::size_t row = sizeof(float) * static_cast<std::size_t>(std::max(d, 1));
  return row <= 64 && 64 % row == 0 && reinterpret_cast<std::uintptr_t>(values) % row != 0;
}

Dataset Dataset::adopt(std::size_t n, int d, AlignedBuffer<float> values, std::vector<Preference> preferences,
                       std::string origin) {
  Dataset out(n, d, std::move(preferences), std::move(origin));
  if (values.size() != n * static_cast<std::size_t>(d))
    throw Error::internal("Dataset::adopt: " + std::to_string(values.size()) + " values for " +
                          std::to_string(n) + " x " + std::to_string(d));
  check_finite(out.origin_, n, d, values.data());
  out.values_ = std::move(values);
  out.data_ = out.values_.data();
  return out;
}

Dataset::Dataset(const Dataset& other)
    : n_(other.n_),
      d_(other.d_),
      values_(other.values_),
      data_(other.is_view() ? other.data_ : values_.data()),
      preferences_(other.preferences_),
      origin_(other.origin_) {}

Dataset& Dataset::operator=(const Dataset& other) {
  if (this != &other) *this = Dataset(other);
  return *this;
}

float Dataset::input_value(PointId id, int column) const noexcept {
  const float v = (*this)(id, column);
  return preferences_[column] == Preference::max ? -v : v;
}

}  // namespace sextant
