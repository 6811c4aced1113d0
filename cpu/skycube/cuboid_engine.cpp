#include "cpu/skycube/cuboid_engine.hpp"

#include <algorithm>
#include <exception>

#include "cpu/simd/isa.hpp"

namespace sextant::cpu::detail {
namespace {

const CuboidKernels& kernels_for_this_cpu() {
  static const CuboidKernels kernels = dispatch_isa([](auto isa) { return cuboid_kernels<decltype(isa)>(); });
  return kernels;
}

}  // namespace

void CuboidEngine::run(const Dataset& data, CandidateList candidates, Mask mask, bool classify, int threads,
                       std::vector<PointId>& skyline, std::vector<PointId>& extended_only) {
  skyline.clear();
  extended_only.clear();
  const std::size_t m = candidates.size();
  if (m == 0) return;
  const bool parallel = threads > 1 && m >= CuboidPolicy::parallel_min_points;

  SortedCandidates& sorted = state_.sorted;
  sorted.prepare(data, candidates, mask, classify, parallel ? threads : 1);
  state_.confirmed.reset(sorted.d, sorted.stride, mask);
  state_.block.begin = state_.block.end = 0;
  verdicts_.assign(m, Verdict::excluded);

  const CuboidKernels& kernels = kernels_for_this_cpu();
  if (parallel)
    run_parallel(kernels, threads);
  else
    run_sequential(kernels);

  // Candidate order is ascending id order.
  for (std::size_t i = 0; i < m; ++i) {
    if (verdicts_[i] == Verdict::skyline)
      skyline.push_back(candidates[i]);
    else if (verdicts_[i] == Verdict::extended)
      extended_only.push_back(candidates[i]);
  }
}

// A tile of about `points` sorted points, extended so that no run of equal scores is split
// (points of equal score may dominate each other, in either order).
void CuboidEngine::start_block(std::size_t begin, std::size_t points) {
  const SortedCandidates& sorted = state_.sorted;
  std::size_t end = std::min(begin + points, sorted.size());
  end = sorted.run_end[end - 1];
  state_.block.begin = begin;
  state_.block.end = end;
  state_.block.resize(end - begin, sorted.stride);
}

// Phase 3: records the verdicts and adds the block's witnesses to the confirmed set in score
// order.
void CuboidEngine::finish_block() {
  const SortedCandidates& sorted = state_.sorted;
  BlockState& block = state_.block;
  const auto stride = static_cast<std::size_t>(sorted.stride);
  for (std::size_t r = 0; r < block.size(); ++r) {
    const Verdict v = block.final_verdict[r];
    verdicts_[sorted.positions[block.begin + r]] = v;
    if (v == Verdict::skyline)
      state_.confirmed.add(block.rows.data() + r * stride, block.below_median[r], block.below_quartile[r]);
  }
}

void CuboidEngine::run_sequential(const CuboidKernels& kernels) {
  const std::size_t m = state_.sorted.size();
  for (std::size_t begin = 0; begin < m; begin = state_.block.end) {
    start_block(begin, CuboidPolicy::sequential_block);
    kernels.phase1(state_, state_.block.begin, state_.block.end);
    state_.block.collect_witnesses();
    kernels.phase2(state_, state_.block.begin, state_.block.end);
    finish_block();
  }
}

// Per tile: phase 1 (points against the confirmed set) and phase 2 (against the tile's earlier
// witnesses) are shared by the team in small dynamic chunks; collecting witnesses, recording
// verdicts and growing the confirmed set are done by one thread between them.
void CuboidEngine::run_parallel(const CuboidKernels& kernels, int threads) {
  const std::size_t m = state_.sorted.size();
  constexpr std::size_t chunk = CuboidPolicy::parallel_chunk;
  std::exception_ptr error;
  bool stop = false;
  std::ptrdiff_t chunks = 0;
#pragma omp parallel num_threads(threads)
  {
    for (;;) {
#pragma omp single
      {
        try {
          if (state_.block.size() != 0) finish_block();
          if (state_.block.end >= m) {
            stop = true;
          } else {
            start_block(state_.block.end, CuboidPolicy::parallel_block);
            chunks = static_cast<std::ptrdiff_t>((state_.block.size() + chunk - 1) / chunk);
          }
        } catch (...) {
          error = std::current_exception();
          stop = true;
        }
      }
      if (stop) break;
      const std::size_t begin = state_.block.begin;
      const std::size_t end = state_.block.end;
#pragma omp for schedule(dynamic, 1)
      for (std::ptrdiff_t c = 0; c < chunks; ++c) {
        const std::size_t from = begin + static_cast<std::size_t>(c) * chunk;
        kernels.phase1(state_, from, std::min(from + chunk, end));
      }
#pragma omp single
      state_.block.collect_witnesses();
#pragma omp for schedule(dynamic, 1)
      for (std::ptrdiff_t c = 0; c < chunks; ++c) {
        const std::size_t from = begin + static_cast<std::size_t>(c) * chunk;
        kernels.phase2(state_, from, std::min(from + chunk, end));
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace sextant::cpu::detail
