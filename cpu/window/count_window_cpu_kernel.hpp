// The CPU hooks of the count-window template, per instruction set. Included by
// count_window_cpu_avx2.cpp (built with AVX2 flags) and count_window_cpu_scalar.cpp.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/window/count_window_cpu.hpp"
#include "cpu/window/count_window_cpu_reduce.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window::detail {

// The partials of one run and where its windows go, as the variants' translation units see them
// (typed again by the aggregate each unit visits).
template <class Agg>
struct TypedRun {
  using Acc = typename Agg::Acc;
  using T = typename Agg::Input;
  const CountWindowArgs& args;
  const ChunkGeometry& g;
  const T* in;
  Acc* full;
  Acc* head;
  Acc* out;  // the K accumulators (positional aggregates: the scratch column split afterwards)

  explicit TypedRun(const CpuCountRun& run)
      : args(run.args),
        g(run.g),
        in(run.args.in.as<T>()),
        full(static_cast<Acc*>(run.full)),
        head(static_cast<Acc*>(run.head)),
        out(static_cast<Acc*>(run.acc)) {}
  bool lifted() const noexcept { return g.slide == 1; }
  // C[j]: the chunk itself when every chunk is one value.
  Acc chunk(std::uint64_t j) const noexcept {
    return lifted() ? lift<Agg>(in[j], {static_cast<std::int64_t>(j)}) : full[j];
  }
};

// Slice hook over chunks [begin, end): C[j] and A[j], SIMD inside each chunk.
template <class Isa, class Agg>
void slice_chunks(const TypedRun<Agg>& run, std::uint64_t begin, std::uint64_t end) {
  using Acc = typename Agg::Acc;
  const ChunkGeometry& g = run.g;
  const std::uint64_t s = g.slide, r = g.rest, q = g.full_chunks;
  // C is read for j < K + q - 1 only; the last chunk contributes its head alone.
  const std::uint64_t last_full = g.windows + q - 1;
  for (std::uint64_t j = begin; j < end; ++j) {
    const typename Agg::Input* base = run.in + j * s;
    const Acc a = r != 0 ? reduce<Isa, Agg>(base, r, j * s) : Agg::identity();
    if (run.head != nullptr) run.head[j] = a;
    if (q > 0 && j < last_full) run.full[j] = Agg::combine(a, reduce<Isa, Agg>(base + r, s - r, j * s + r));
  }
}

// Expand hook over blocks [begin, end): van Herk / Gil-Werman over blocks of q chunks. For the
// windows starting in block b, out[k] = Suf(k) + Pre(k + q - 1) (+ A[k + q]), where Suf runs to the
// end of block b and Pre from the start of block b + 1; a window starting on a block boundary is Suf
// alone. Without full chunks (S > W) a block is one window: its head. Positional aggregates then
// split the block's accumulators into the value and the position columns. (Scalar code, but
// templated on the instruction set so that each unit's copy is its own symbol: see isa_symbols.sh.)
template <class Isa, class Agg>
void expand_blocks(const TypedRun<Agg>& run, std::uint64_t begin, std::uint64_t end) {
  using Acc = typename Agg::Acc;
  const ChunkGeometry& g = run.g;
  const std::uint64_t windows = g.windows, q = g.full_chunks;
  Acc* out = run.out;
  std::uint64_t first = begin, last = end;  // the windows written
  if (q == 0) {
    for (std::uint64_t k = begin; k < end; ++k) out[k] = run.head[k];
  } else {
    first = begin * q;
    last = std::min(end * q, windows);
    for (std::uint64_t b = begin; b < end; ++b) {
      const std::uint64_t k0 = b * q;
      const std::uint64_t k1 = std::min(k0 + q, windows);
      Acc acc = Agg::identity();
      for (std::uint64_t j = k0 + q; j-- > k0;) {
        acc = Agg::combine(run.chunk(j), acc);
        if (j < k1) out[j] = acc;
      }
      Acc pre = Agg::identity();
      for (std::uint64_t k = k0 + 1; k < k1; ++k) {
        pre = Agg::combine(pre, run.chunk(k + q - 1));
        out[k] = Agg::combine(out[k], pre);
      }
      if (g.rest != 0)
        for (std::uint64_t k = k0; k < k1; ++k) out[k] = Agg::combine(out[k], run.head[k + q]);
    }
  }
  if constexpr (SelectingAggregate<Agg>) {
    typename Agg::Input* values = run.args.out.template as<typename Agg::Input>();
    for (std::uint64_t k = first; k < last; ++k) {
      values[k] = out[k].value;
      run.args.positions[k] = out[k].at;
    }
  }
}

// The two hooks of one instruction set, for a run of any aggregate (the variants' entry points,
// CpuCountWindowOn<Isa>::slice / ::expand, are these in the instruction set's translation unit).
template <class Isa>
void slice_run(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
  visit_aggregate(run.args.in.type, run.args.kind,
                  [&](auto agg) { slice_chunks<Isa>(TypedRun<decltype(agg)>(run), begin, end); });
}
template <class Isa>
void expand_run(const CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
  visit_aggregate(run.args.in.type, run.args.kind,
                  [&](auto agg) { expand_blocks<Isa>(TypedRun<decltype(agg)>(run), begin, end); });
}

}  // namespace sextant::window::detail
