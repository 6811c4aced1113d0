// A dataset: n points x d columns of float32, row-major, contiguous (64-byte aligned when it owns
// its values). Column preferences are applied once, at construction: a "max" column is negated,
// so every algorithm minimises. Point id = row index.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/subspace.hpp"

namespace sextant {

enum class Preference { min, max };

// Parses "min,max,min" (exactly d entries); throws Error naming `parameter`.
std::vector<Preference> parse_preferences(const char* parameter, std::string_view text, int d);

class Dataset {
 public:
  Dataset() = default;
  // `values` row-major in the input's orientation (n * d entries). Rejects NaN/inf (naming
  // `origin`, row and column), d outside 1..max_columns and a preference list of the wrong
  // length (empty = all min).
  Dataset(std::size_t n, int d, std::span<const float> values, std::vector<Preference> preferences = {},
          std::string origin = "dataset");
  // A dataset over the caller's values, without a copy (every column "min"): the caller keeps
  // them alive and unchanged while the dataset or a copy of it is used. The same checks as above.
  static Dataset view(std::size_t n, int d, std::span<const float> values, std::string origin = "dataset");
  // Whether rows of d floats starting at `values` straddle cache lines only because of where they
  // start: rows of 4, 8, 16, 32 or 64 bytes each fit in a line when the first starts on a multiple
  // of the row size (an owned Dataset's values start on a line). A caller that may copy (the
  // Python package: NumPy aligns arrays on 16 bytes) copies such values instead of viewing them.
  static bool rows_straddle_lines(const float* values, int d) noexcept;
  // A dataset that takes over `values` without a copy: n * d values, row-major, already in
  // minimisation form (the max columns negated). The same checks as above.
  static Dataset adopt(std::size_t n, int d, AlignedBuffer<float> values,
                       std::vector<Preference> preferences = {}, std::string origin = "dataset");

  Dataset(const Dataset& other);
  Dataset& operator=(const Dataset& other);
  Dataset(Dataset&&) noexcept = default;
  Dataset& operator=(Dataset&&) noexcept = default;

  std::size_t size() const noexcept { return n_; }
  int dims() const noexcept { return d_; }
  bool empty() const noexcept { return n_ == 0; }
  const std::vector<Preference>& preferences() const noexcept { return preferences_; }
  const std::string& origin() const noexcept { return origin_; }

  // Minimisation form (max columns negated).
  const float* row(PointId id) const noexcept { return data_ + std::size_t{id} * d_; }
  float operator()(PointId id, int column) const noexcept { return row(id)[column]; }
  std::span<const float> values() const noexcept { return {data_, n_ * static_cast<std::size_t>(d_)}; }
  // Whether the values are the caller's (view), not a copy.
  bool is_view() const noexcept { return d_ > 0 && data_ != values_.data(); }

  // The value as it was given (max columns negated back).
  float input_value(PointId id, int column) const noexcept;

 private:
  Dataset(std::size_t n, int d, std::vector<Preference> preferences, std::string origin);

  std::size_t n_ = 0;
  int d_ = 0;
  AlignedBuffer<float> values_;  // empty for a view
  const float* data_ = nullptr;  // values_.data() or the caller's values
  std::vector<Preference> preferences_;
  std::string origin_;
};

}  // namespace sextant
