// Google Benchmark body for the per-ISA dominance test: one point against a block of padded
// rows, as the refine and the cuboid skylines do it. Instantiated once per ISA translation unit.
#pragma once

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/cpu_features.hpp"
#include "cpu/simd/dominance.hpp"

namespace sextant::bench {

template <class Isa>
void dominance_block(benchmark::State& state) {
  if (std::is_same_v<Isa, cpu::Avx2Isa> && !cpu_supports(SimdLevel::avx2)) {
    state.SkipWithError("this CPU has no AVX2");
    return;
  }
  const int d = static_cast<int>(state.range(0));
  const int stride = cpu::padded_stride(d);
  constexpr int rows = 4096;  // 4096 x 16 floats = 256 KiB: an L2-resident block
  std::vector<float> block(static_cast<std::size_t>(rows) * stride, 0.0f);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < d; ++j) block[static_cast<std::size_t>(i) * stride + j] = u(rng);
  std::vector<float> p(static_cast<std::size_t>(stride), 0.5f);
  for (auto _ : state) {
    Mask acc = 0;
    for (int i = 0; i < rows; ++i) {
      const auto m = cpu::Dominance<Isa>::compare(block.data() + static_cast<std::size_t>(i) * stride, p.data(), d);
      acc ^= m.le + m.eq;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * rows);
}

}  // namespace sextant::bench
