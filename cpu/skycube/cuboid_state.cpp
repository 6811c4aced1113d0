#include "cpu/skycube/cuboid_state.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
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

std::size_t SortedCandidates::capacity_bytes() const noexcept {
  return detail::capacity_bytes(ids, positions, run_end, keys_, key_scratch_, pos_scratch_, packed_,
                                sample_) +
         detail::capacity_bytes(quantiser.bound, quantiser.scale);
}

void SortedCandidates::prepare(const Dataset& dataset, CandidateList candidates, Mask subspace,
                               bool classify_mode, int threads) {
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
  const auto score = [&](std::size_t i) {
    const float* row = dataset.row(candidates[i]);
    float sum = 0.0f;
    for (int c = 0; c < column_count; ++c) sum += row[columns[c]];
    keys_[i] = ordered_key(sum + 0.0f);
    positions[i] = static_cast<std::uint32_t>(i);
  };
  if (threads > 1 && m >= 65536) {
    const auto n = static_cast<std::ptrdiff_t>(m);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) score(static_cast<std::size_t>(i));
  } else {
    for (std::size_t i = 0; i < m; ++i) score(i);
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
  for (std::size_t k = m; k-- > 0;)
    run_end[k] = k + 1 < m && keys_[k + 1] == keys_[k] ? run_end[k + 1] : static_cast<std::uint32_t>(k + 1);

  fit_quantiser(dataset, candidates);
}

// Quartiles (and extremes) of an even sample of the candidates on each column of δ. Any values
// keep the code test sound (the map stays monotone); good ones make it selective.
void SortedCandidates::fit_quantiser(const Dataset& dataset, CandidateList candidates) {
  Quantiser& q = quantiser;
  const auto s = static_cast<std::size_t>(stride);
  q.field_bits = d > 8 && d <= 12 ? 5 : 8;
  q.words = q.field_bits == 5 || d <= 8 ? 1 : d <= 16 ? 2 : 4;
  const int fields_per_word = 64 / q.field_bits;
  const std::uint64_t guard_bit = std::uint64_t{1} << (q.field_bits - 1);
  q.high = 0;
  for (int f = 0; f < fields_per_word; ++f) q.high |= guard_bit << (f * q.field_bits);
  q.guard.fill(0);
  q.bound.assign(Quantiser::pieces * s, 0.0f);
  q.scale.assign(Quantiser::pieces * s, 0.0f);
  for (Mask rest = mask; rest != 0; rest &= rest - 1) {
    const int column = std::countr_zero(rest);
    q.guard[static_cast<std::size_t>(column / fields_per_word)] |=
        guard_bit << (column % fields_per_word * q.field_bits);
  }

  const std::size_t m = candidates.size();
  const std::size_t n = std::min(m, std::clamp<std::size_t>(m / 16, CuboidPolicy::min_quantiser_sample,
                                                            CuboidPolicy::max_quantiser_sample));
  if (n == 0) return;
  sample_.resize(n);
  for (Mask rest = mask; rest != 0; rest &= rest - 1) {
    const int column = std::countr_zero(rest);
    for (std::size_t j = 0; j < n; ++j) sample_[j] = dataset.row(candidates[j * m / n])[column];
    std::sort(sample_.begin(), sample_.end());
    const std::array<float, Quantiser::pieces + 1> ends = {sample_[0], sample_[n / 4], sample_[n / 2],
                                                           sample_[3 * n / 4], sample_[n - 1]};
    for (int piece = 0; piece < Quantiser::pieces; ++piece) {
      const float width = ends[piece + 1] - ends[piece];
      const std::size_t at = static_cast<std::size_t>(piece) * s + static_cast<std::size_t>(column);
      q.bound[at] = ends[piece];
      q.scale[at] = width > 0.0f && width < std::numeric_limits<float>::infinity()
                        ? static_cast<float>(Quantiser::codes_per_piece) / width
                        : 0.0f;
    }
  }
}

// ---- ConfirmedSet ------------------------------------------------------------------------------

void ConfirmedSet::Storage::resize(std::size_t points, int stride, int code_words) {
  below_median.resize(points);
  positions.resize(points);
  codes.resize(points * static_cast<std::size_t>(code_words));
  rows.resize(points * static_cast<std::size_t>(stride));
}

void ConfirmedSet::reset(int d, int stride, int code_words, Mask mask) {
  d_ = d;
  stride_ = stride;
  code_words_ = code_words;
  mask_ = mask;
  size_ = 0;
  group_mask_ = 0;
  start_.assign(1, 0);
  count_.assign(1, 0);
  capacity_.assign(1, 0);
  tail_start_ = 0;
  tail_count_ = 0;
  tail_capacity_ = CuboidPolicy::min_tail;
  order_.clear();
  live_.resize(tail_capacity_ + CuboidPolicy::simd_pad, stride_, code_words_);
}

std::size_t ConfirmedSet::capacity_bytes() const noexcept {
  const auto storage = [](const Storage& s) {
    return detail::capacity_bytes(s.below_median, s.positions, s.codes, s.rows);
  };
  return storage(live_) + storage(spare_) + detail::capacity_bytes(start_, count_, capacity_, order_);
}

ConfirmedView ConfirmedSet::view() const noexcept {
  return {live_.codes.data(),
          live_.rows.data(),
          live_.positions.data(),
          start_.data(),
          count_.data(),
          group_mask_,
          static_cast<std::uint32_t>(start_.size()),
          tail_start_,
          tail_count_};
}

void ConfirmedSet::place(Storage& to, std::size_t at, const Storage& from, std::size_t index) const {
  to.below_median[at] = from.below_median[index];
  to.positions[at] = from.positions[index];
  const auto cw = static_cast<std::size_t>(code_words_);
  std::copy_n(from.codes.data() + index * cw, cw, to.codes.data() + at * cw);
  const auto s = static_cast<std::size_t>(stride_);
  std::copy_n(from.rows.data() + index * s, s, to.rows.data() + at * s);
}

void ConfirmedSet::add(const float* row, const std::uint64_t* codes, std::uint32_t below_median,
                       std::uint32_t position) {
  const std::uint32_t key = extract_bits(below_median, group_mask_);
  const std::size_t at =
      count_[key] < capacity_[key] ? start_[key] + count_[key]++ : tail_start_ + tail_count_++;
  live_.below_median[at] = below_median;
  live_.positions[at] = position;
  order_.push_back(static_cast<std::uint32_t>(at));
  const auto cw = static_cast<std::size_t>(code_words_);
  std::copy_n(codes, cw, live_.codes.data() + at * cw);
  const auto s = static_cast<std::size_t>(stride_);
  std::copy_n(row, s, live_.rows.data() + at * s);
  ++size_;
  if (tail_count_ == tail_capacity_) regroup();
}

// Regroups all points on more columns as the set grows; every group gets as much room again as
// it holds, so regrouping happens about once per doubling (amortised O(1) copies per point).
// Points are placed in insertion (= sorted-position) order, so every group stays in score order.
void ConfirmedSet::regroup() {
  int bits = 0;
  const int max_bits = std::min(level(mask_), CuboidPolicy::max_group_bits);
  while (bits < max_bits && (size_ >> (bits + 1)) >= CuboidPolicy::points_per_group) ++bits;
  std::uint32_t group_mask = 0;
  Mask rest = mask_;
  for (int b = 0; b < bits; ++b, rest &= rest - 1) group_mask |= rest & (~rest + 1);
  const std::size_t groups = std::size_t{1} << bits;

  capacity_.assign(groups, 0);
  for (const std::uint32_t i : order_) ++capacity_[extract_bits(live_.below_median[i], group_mask)];
  start_.resize(groups);
  count_.assign(groups, 0);
  std::size_t total = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    start_[g] = static_cast<std::uint32_t>(total);
    capacity_[g] = 2 * capacity_[g] + 1;
    total += capacity_[g];
  }
  tail_start_ = total;
  tail_count_ = 0;
  tail_capacity_ = std::max(CuboidPolicy::min_tail, size_ / 16);
  spare_.resize(total + tail_capacity_ + CuboidPolicy::simd_pad, stride_, code_words_);
  for (std::uint32_t& i : order_) {
    const std::uint32_t key = extract_bits(live_.below_median[i], group_mask);
    const std::uint32_t at = start_[key] + count_[key]++;
    place(spare_, at, live_, i);
    i = at;
  }
  group_mask_ = group_mask;
  std::swap(live_, spare_);
}

// ---- BlockState --------------------------------------------------------------------------------

std::size_t BlockState::capacity_bytes() const noexcept {
  return detail::capacity_bytes(rows, codes, below_median, first, final_verdict);
}

void BlockState::resize(std::size_t points, int stride, int words) {
  code_words = words;
  rows.resize(points * static_cast<std::size_t>(stride));
  codes.resize(points * static_cast<std::size_t>(words));
  below_median.resize(points);
  first.resize(points);
  final_verdict.resize(points);
}

std::size_t WitnessList::capacity_bytes() const noexcept {
  return detail::capacity_bytes(codes, rows, prefix);
}

void WitnessList::build(const BlockState& block) {
  const auto words = static_cast<std::size_t>(block.code_words);
  const std::size_t points = block.size();
  if (codes.size() < (points + CuboidPolicy::simd_pad) * words)
    codes.resize((points + CuboidPolicy::simd_pad) * words);
  if (rows.size() < points) rows.resize(points);
  if (prefix.size() < points + 1) prefix.resize(points + 1);
  std::uint32_t n = 0;
  for (std::size_t r = 0; r < points; ++r) {
    prefix[r] = n;
    if (block.first[r] != Verdict::skyline) continue;
    std::copy_n(block.codes.data() + r * words, words, codes.data() + std::size_t{n} * words);
    rows[n++] = static_cast<std::uint32_t>(r);
  }
  prefix[points] = n;
}

}  // namespace sextant::cpu::detail
