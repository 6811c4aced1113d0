#include "cpu/skycube/cuboid_engine.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>

#include "cpu/simd/isa.hpp"

namespace sextant::cpu::detail {

const CuboidKernels& best_cuboid_kernels() {
  static const CuboidKernels kernels =
      dispatch_isa_avx512([](auto isa) { return cuboid_kernels<decltype(isa)>(); });
  return kernels;
}

void CuboidEngine::run(const Dataset& data, CandidateList candidates, Mask mask, bool classify, int threads,
                       std::vector<PointId>& skyline, std::vector<PointId>& extended_only,
                       const CuboidKernels& kernels, bool skyline_only) {
  skyline.clear();
  extended_only.clear();
  if (candidates.size() >= CuboidPolicy::prefilter_min_points)
    candidates = prefilter(data, candidates, mask, classify && !skyline_only, threads, kernels);
  const std::size_t m = candidates.size();
  if (m == 0) return;
  const std::size_t team =
      threads > 1 && m >= CuboidPolicy::parallel_min_points ? static_cast<std::size_t>(threads) : 1;

  sorted_.prepare(data, candidates, mask, classify, static_cast<int>(team));
  verdicts_.assign(m, Verdict::excluded);
  if (parts_.size() < team) parts_.resize(team);
  for (std::size_t k = 0; k < team; ++k) {
    CuboidState& part = parts_[k];
    part.sorted = &sorted_;
    part.partition = {k, team, (m - k + team - 1) / team};
    part.confirmed.reset(sorted_.d, sorted_.stride, sorted_.quantiser.words, mask);
    part.block.begin = part.block.end = 0;
    part.survival = 1.0;
  }

  if (team == 1) {
    run_tiles(parts_[0], kernels);
  } else {
    // Two barriers per cuboid: a thread that the OS preempts delays the others at most once.
    const std::span<CuboidState> parts(parts_.data(), team);
    const int team_threads = static_cast<int>(team);
    std::exception_ptr error;
#pragma omp parallel num_threads(team_threads)
    {
      // The runtime may grant fewer threads than asked for: a thread then runs several partitions.
      const auto self = static_cast<std::size_t>(omp_get_thread_num());
      const auto granted = static_cast<std::size_t>(omp_get_num_threads());
      try {
        for (std::size_t k = self; k < team; k += granted) run_tiles(parts[k], kernels);
        parts[self].block.resize(1, sorted_.stride, sorted_.quantiser.words);  // cross-phase scratch
      } catch (...) {
#pragma omp critical(sextant_cuboid_error)
        if (!error) error = std::current_exception();
      }
#pragma omp barrier
      if (!error) {
        // Any thread may check any point: dynamic chunks balance a thread the OS preempted.
        constexpr std::size_t chunk = CuboidPolicy::cross_chunk;
        const auto chunks = static_cast<std::ptrdiff_t>((m + chunk - 1) / chunk);
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t c = 0; c < chunks; ++c) {
          const auto begin = static_cast<std::size_t>(c) * chunk;
          kernels.cross(parts, self, begin, std::min(begin + chunk, m), verdicts_.data());
        }
      }
    }
    if (error) std::rethrow_exception(error);
  }

  // Candidate order is ascending id order.
  for (std::size_t i = 0; i < m; ++i) {
    if (verdicts_[i] == Verdict::skyline)
      skyline.push_back(candidates[i]);
    else if (verdicts_[i] == Verdict::extended)
      extended_only.push_back(candidates[i]);
  }
}

std::size_t CuboidEngine::capacity_bytes() const noexcept {
  std::size_t bytes =
      sorted_.capacity_bytes() + detail::capacity_bytes(verdicts_, survivors_[0], survivors_[1], sample_,
                                                        sample_skyline_, sample_rest_, filter_.columns,
                                                        filter_.values, removal_values_);
  for (const CuboidState& part : parts_) bytes += part.capacity_bytes();
  return bytes + (sample_engine_ ? sample_engine_->capacity_bytes() : 0);
}

bool CuboidEngine::fit_prefilter(const Dataset& data, CandidateList candidates, Mask mask, bool strict,
                                 const CuboidKernels& kernels) {
  const std::size_t m = candidates.size();
  const std::size_t s = std::min(m, CuboidPolicy::prefilter_sample);
  sample_.resize(s);
  for (std::size_t i = 0; i < s; ++i) sample_[i] = candidates[i * m / s];  // ascending
  if (!sample_engine_) sample_engine_ = std::make_unique<CuboidEngine>();
  sample_engine_->run(data, {sample_}, mask, true, 1, sample_skyline_, sample_rest_, kernels);
  // A filter point removes only points it dominates, never a point of the sample's skyline: when
  // the skyline holds most of the sample (the candidates of a skycube's cuboids, an extended
  // skyline, often do), no choice of filter points can pay, and choosing them is skipped.
  if (static_cast<double>(s - sample_skyline_.size()) <
      CuboidPolicy::prefilter_min_pruned * static_cast<double>(s))
    return false;

  Prefilter& f = filter_;
  f.strict = strict;
  f.columns.clear();
  for (Mask rest = mask; rest != 0; rest &= rest - 1) f.columns.push_back(std::countr_zero(rest));
  const std::size_t columns = f.columns.size();
  // The sample's skyline points (at most prefilter_candidates of them, evenly spread over the
  // list) each remove a set of sample points; the filter points are chosen greedily, each the one
  // that removes the most sample points the ones before it left.
  const std::size_t pool = std::min(sample_skyline_.size(), CuboidPolicy::prefilter_candidates);
  const std::size_t words = (s + 63) / 64;
  const std::size_t padded = words * 64;
  removal_values_.assign(columns * (padded + pool), std::numeric_limits<float>::quiet_NaN());
  float* const sample_values = removal_values_.data();
  float* const pool_values = sample_values + columns * padded;
  for (std::size_t c = 0; c < columns; ++c) {
    for (std::size_t i = 0; i < s; ++i) sample_values[c * padded + i] = data(sample_[i], f.columns[c]);
    for (std::size_t k = 0; k < pool; ++k)
      pool_values[c * pool + k] = data(sample_skyline_[k * sample_skyline_.size() / pool], f.columns[c]);
  }
  std::vector<std::uint64_t> removed(pool * words);
  kernels.prefilter_removals(sample_values, padded, pool_values, pool, columns, strict, removed.data());
  std::vector<std::uint64_t> left(words, ~std::uint64_t{0});
  f.values.assign(columns * Prefilter::lanes, std::numeric_limits<float>::quiet_NaN());
  f.count = 0;
  std::size_t pruned = 0;
  while (f.count < Prefilter::lanes) {
    std::size_t best = pool, best_gain = 0;
    for (std::size_t k = 0; k < pool; ++k) {
      std::size_t gain = 0;
      for (std::size_t w = 0; w < words; ++w)
        gain += static_cast<std::size_t>(std::popcount(removed[k * words + w] & left[w]));
      if (gain > best_gain) best = k, best_gain = gain;
    }
    if (best == pool) break;  // no point removes anything more
    for (std::size_t w = 0; w < words; ++w) left[w] &= ~removed[best * words + w];
    const PointId q = sample_skyline_[best * sample_skyline_.size() / pool];
    for (std::size_t c = 0; c < columns; ++c)
      f.values[c * Prefilter::lanes + static_cast<std::size_t>(f.count)] = data(q, f.columns[c]);
    ++f.count;
    pruned += best_gain;
  }
  // Worth a pass over every candidate only when it removes a good share of the sample.
  return f.count > 0 &&
         static_cast<double>(pruned) >= CuboidPolicy::prefilter_min_pruned * static_cast<double>(s);
}

CandidateList CuboidEngine::prefilter(const Dataset& data, CandidateList candidates, Mask mask, bool strict,
                                      int threads, const CuboidKernels& kernels) {
  // Rounds: each fits its filter points to what the last one left, whose skyline points are
  // the stronger filters, while that still removes a good share.
  for (int round = 0; round < CuboidPolicy::prefilter_rounds; ++round) {
    if (candidates.size() < CuboidPolicy::prefilter_min_points) break;
    if (!fit_prefilter(data, candidates, mask, strict, kernels)) break;
    candidates = filter_pass(data, candidates, threads, kernels, round % 2);
  }
  return candidates;
}

CandidateList CuboidEngine::filter_pass(const Dataset& data, CandidateList candidates, int threads,
                                        const CuboidKernels& kernels, int buffer) {
  std::vector<PointId>& out = survivors_[buffer];
  const std::size_t m = candidates.size();
  if (out.size() < m) out.resize(m);
  const int team = std::max(1, std::min(threads, static_cast<int>(m / CuboidPolicy::prefilter_min_points)));
  if (team == 1)
    return {
        std::span<const PointId>(out.data(), kernels.prefilter(data, candidates, 0, m, filter_, out.data()))};
  // Each thread filters a contiguous slice in place, then the slices are packed in order.
  std::vector<std::size_t> kept(static_cast<std::size_t>(team));
  const auto slice = [&](int t) { return static_cast<std::size_t>(t) * m / static_cast<std::size_t>(team); };
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int t = 0; t < team; ++t)
    kept[static_cast<std::size_t>(t)] =
        kernels.prefilter(data, candidates, slice(t), slice(t + 1), filter_, out.data() + slice(t));
  std::size_t at = kept[0];
  for (int t = 1; t < team; ++t) {
    std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(slice(t)), kept[static_cast<std::size_t>(t)],
                out.begin() + static_cast<std::ptrdiff_t>(at));
    at += kept[static_cast<std::size_t>(t)];
  }
  return {std::span<const PointId>(out.data(), at)};
}

// The tiles of one partition, in score order.
void CuboidEngine::run_tiles(CuboidState& part, const CuboidKernels& kernels) {
  while (part.block.end < part.partition.size) {
    start_block(part);
    kernels.phase1(part, part.block.begin, part.block.end);
    part.witnesses.build(part.block);
    kernels.phase2(part, part.block.begin, part.block.end);
    finish_block(part);
  }
}

// The next tile: enough points to expect tile_witnesses witnesses at the last tile's rate (at
// most 64 times that many points), extended so that no run of equal scores is split (points of
// equal score may dominate each other, in either order).
void CuboidEngine::start_block(CuboidState& part) {
  const Partition& partition = part.partition;
  const std::size_t begin = part.block.end;
  const auto points = static_cast<std::size_t>(static_cast<double>(CuboidPolicy::tile_witnesses) /
                                               std::max(part.survival, 1.0 / 64));
  std::size_t end = std::min(begin + points, partition.size);
  end = partition.count_below(sorted_.run_end[partition.position(end - 1)]);
  part.block.begin = begin;
  part.block.end = end;
  part.block.resize(end - begin, sorted_.stride, sorted_.quantiser.words);
}

// Phase 3: records the verdicts and adds the tile's witnesses to the confirmed set in score
// order.
void CuboidEngine::finish_block(CuboidState& part) {
  BlockState& block = part.block;
  const auto stride = static_cast<std::size_t>(sorted_.stride);
  const auto words = static_cast<std::size_t>(block.code_words);
  std::size_t witnesses = 0;
  for (std::size_t r = 0; r < block.size(); ++r) {
    const Verdict v = block.final_verdict[r];
    const std::size_t position = part.partition.position(block.begin + r);
    verdicts_[sorted_.positions[position]] = v;
    if (v != Verdict::skyline) continue;
    part.confirmed.add(block.rows.data() + r * stride, block.codes.data() + r * words, block.below_median[r],
                       static_cast<std::uint32_t>(position));
    ++witnesses;
  }
  part.survival = static_cast<double>(witnesses) / static_cast<double>(block.size());
}

}  // namespace sextant::cpu::detail
