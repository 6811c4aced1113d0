#include "cpu/skycube/cuboid_state.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <utility>

#include "cpu/simd/dominance.hpp"

namespace sextant::cpu::detail {
namespace {

// Float order as unsigned order (scores are finite or ±inf, never NaN; -0 was folded into +0).
constexpr std::uint32_t ordered_key(float score) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(score);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

// Stable LSD radix sort of keys, carrying `values`; 8-bit digits, constant digits skipped.
void radix_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& values,
                std::vector<std::uint32_t>& key_scratch, std::vector<std::uint32_t>& value_scratch) {
  const std::size_t n = keys.size();
  std::array<std::array<std::size_t, 256>, 4> counts{};
  for (const std::uint32_t k : keys)
    for (int b = 0; b < 4; ++b) ++counts[b][(k >> (8 * b)) & 0xFFu];
  key_scratch.resize(n);
  value_scratch.resize(n);
  for (int b = 0; b < 4; ++b) {
    auto& c = counts[b];
    if (c[keys[0] >> (8 * b) & 0xFFu] == n) continue;
    std::size_t sum = 0;
    for (std::size_t& x : c) sum += std::exchange(x, sum);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = c[(keys[i] >> (8 * b)) & 0xFFu]++;
      key_scratch[at] = keys[i];
      value_scratch[at] = values[i];
    }
    keys.swap(key_scratch);
    values.swap(value_scratch);
  }
}

}  // namespace

void SortedCandidates::prepare(const Dataset& dataset, CandidateList candidates, Mask subspace, bool classify_mode,
                               int threads) {
  data = &dataset;
  mask = subspace;
  d = dataset.dims();
  stride = padded_stride(d);
  classify = classify_mode;
  const std::size_t m = candidates.size();

  std::array<int, max_columns> columns{};
  int column_count = 0;
  for (Mask rest = subspace; rest != 0; rest &= rest - 1) columns[column_count++] = std::countr_zero(rest);

  keys_.resize(m);
  positions.resize(m);
  const auto n_signed = static_cast<std::ptrdiff_t>(m);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && m >= 65536)
  for (std::ptrdiff_t i = 0; i < n_signed; ++i) {
    const float* row = dataset.row(candidates[static_cast<std::size_t>(i)]);
    float score = 0.0f;
    for (int c = 0; c < column_count; ++c) score += row[columns[c]];
    keys_[i] = ordered_key(score + 0.0f);
    positions[i] = static_cast<std::uint32_t>(i);
  }
  // Ties keep candidate order (= ascending id) because the sort is stable.
  if (m > 0) {
    if (m < 256) {
      std::vector<std::uint64_t>& packed = packed_;
      packed.resize(m);
      for (std::size_t i = 0; i < m; ++i) packed[i] = std::uint64_t{keys_[i]} << 32 | i;
      std::sort(packed.begin(), packed.end());
      for (std::size_t i = 0; i < m; ++i) {
        keys_[i] = static_cast<std::uint32_t>(packed[i] >> 32);
        positions[i] = static_cast<std::uint32_t>(packed[i]);
      }
    } else {
      radix_sort(keys_, positions, key_scratch_, pos_scratch_);
    }
  }

  ids.resize(m);
  run_end.resize(m);
  for (std::size_t k = 0; k < m; ++k) ids[k] = candidates[positions[k]];
  for (std::size_t k = m; k-- > 0;) run_end[k] = k + 1 < m && keys_[k + 1] == keys_[k] ? run_end[k + 1] : static_cast<std::uint32_t>(k + 1);

  // Pivots from an even sample of the candidates: the median of each column of δ, and the
  // medians of the lower and upper halves. Any values keep the mask tests sound; good ones make
  // them selective.
  median.assign(static_cast<std::size_t>(stride), 0.0f);
  quartile_low.assign(static_cast<std::size_t>(stride), 0.0f);
  quartile_high.assign(static_cast<std::size_t>(stride), 0.0f);
  const std::size_t s = std::min(m, CuboidPolicy::pivot_sample);
  if (s == 0) return;
  sample_.resize(s);
  for (int c = 0; c < column_count; ++c) {
    const int column = columns[c];
    for (std::size_t j = 0; j < s; ++j) sample_[j] = dataset.row(candidates[j * m / s])[column];
    const auto mid = static_cast<std::ptrdiff_t>(s / 2);
    const auto begin = sample_.begin();
    std::nth_element(begin, begin + mid, sample_.end());
    median[column] = begin[mid];
    std::nth_element(begin, begin + mid / 2, begin + mid);
    quartile_low[column] = mid > 0 ? begin[mid / 2] : begin[mid];
    const auto upper = mid + (static_cast<std::ptrdiff_t>(s) - mid) / 2;
    std::nth_element(begin + mid, begin + upper, sample_.end());
    quartile_high[column] = begin[upper];
  }
}

// ---- ConfirmedSet ------------------------------------------------------------------------------

void ConfirmedSet::Storage::resize(std::size_t points, int stride) {
  below_median.resize(points);
  below_quartile.resize(points);
  rows.resize(points * static_cast<std::size_t>(stride));
}

void ConfirmedSet::reset(int d, int stride, Mask mask) {
  d_ = d;
  stride_ = stride;
  mask_ = mask;
  size_ = 0;
  group_mask_ = 0;
  start_.assign(1, 0);
  count_.assign(1, 0);
  capacity_.assign(1, 0);
  tail_start_ = 0;
  tail_count_ = 0;
  tail_capacity_ = CuboidPolicy::min_tail;
  live_.resize(tail_capacity_ + CuboidPolicy::simd_pad, stride_);
}

ConfirmedView ConfirmedSet::view() const noexcept {
  return {live_.below_median.data(), live_.below_quartile.data(), live_.rows.data(), start_.data(), count_.data(),
          group_mask_,           static_cast<std::uint32_t>(start_.size()), tail_start_, tail_count_};
}

void ConfirmedSet::place(Storage& to, std::size_t at, const Storage& from, std::size_t index) const {
  to.below_median[at] = from.below_median[index];
  to.below_quartile[at] = from.below_quartile[index];
  const auto s = static_cast<std::size_t>(stride_);
  std::copy_n(from.rows.data() + index * s, s, to.rows.data() + at * s);
}

void ConfirmedSet::add(const float* row, std::uint32_t below_median, std::uint32_t below_quartile) {
  const std::uint32_t key = extract_bits(below_median, group_mask_);
  std::size_t at;
  if (count_[key] < capacity_[key]) {
    at = start_[key] + count_[key]++;
  } else {
    at = tail_start_ + tail_count_++;
  }
  live_.below_median[at] = below_median;
  live_.below_quartile[at] = below_quartile;
  const auto s = static_cast<std::size_t>(stride_);
  std::copy_n(row, s, live_.rows.data() + at * s);
  ++size_;
  if (tail_count_ == tail_capacity_) regroup();
}

// Regroups all points on more columns as the set grows; every group gets as much room again as
// it holds, so regrouping happens about once per doubling (amortised O(1) copies per point).
void ConfirmedSet::regroup() {
  int bits = 0;
  const int max_bits = std::min(level(mask_), CuboidPolicy::max_group_bits);
  while (bits < max_bits && (size_ >> (bits + 1)) >= CuboidPolicy::points_per_group) ++bits;
  std::uint32_t group_mask = 0;
  Mask rest = mask_;
  for (int b = 0; b < bits; ++b, rest &= rest - 1) group_mask |= rest & (~rest + 1);
  const std::size_t groups = std::size_t{1} << bits;

  // The old layout, read while the new one is written to spare_.
  old_start_.swap(start_);
  old_count_.swap(count_);
  const std::size_t old_tail_start = tail_start_;
  const auto for_each_point = [&](auto&& f) {
    for (std::size_t g = 0; g < old_start_.size(); ++g)
      for (std::size_t i = old_start_[g]; i < old_start_[g] + old_count_[g]; ++i) f(i);
    for (std::size_t i = old_tail_start; i < old_tail_start + tail_count_; ++i) f(i);
  };
  capacity_.assign(groups, 0);
  for_each_point([&](std::size_t i) { ++capacity_[extract_bits(live_.below_median[i], group_mask)]; });

  start_.resize(groups);
  count_.assign(groups, 0);
  std::size_t total = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    start_[g] = static_cast<std::uint32_t>(total);
    capacity_[g] = 2 * capacity_[g] + 1;
    total += capacity_[g];
  }
  tail_start_ = total;
  tail_capacity_ = std::max(CuboidPolicy::min_tail, size_ / 16);
  spare_.resize(total + tail_capacity_ + CuboidPolicy::simd_pad, stride_);
  for_each_point([&](std::size_t i) {
    const std::uint32_t key = extract_bits(live_.below_median[i], group_mask);
    place(spare_, start_[key] + count_[key]++, live_, i);
  });
  tail_count_ = 0;
  group_mask_ = group_mask;
  std::swap(live_, spare_);
}

// ---- BlockState --------------------------------------------------------------------------------

void BlockState::resize(std::size_t points, int stride) {
  rows.resize(points * static_cast<std::size_t>(stride));
  below_median.resize(points);
  below_quartile.resize(points);
  first.resize(points);
  final_verdict.resize(points);
  witness_median.resize(points + CuboidPolicy::simd_pad);
  witness_quartile.resize(points + CuboidPolicy::simd_pad);
  witness_row.resize(points + CuboidPolicy::simd_pad);
  witness_prefix.resize(points + 1);
}

void BlockState::collect_witnesses() {
  std::uint32_t n = 0;
  for (std::size_t r = 0; r < size(); ++r) {
    witness_prefix[r] = n;
    if (first[r] != Verdict::skyline) continue;
    witness_median[n] = below_median[r];
    witness_quartile[n] = below_quartile[r];
    witness_row[n] = static_cast<std::uint32_t>(r);
    ++n;
  }
  witness_prefix[size()] = n;
}

}  // namespace sextant::cpu::detail
