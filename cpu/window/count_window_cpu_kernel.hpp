// The CPU hooks of the count-window template, per instruction set. Included by
// count_window_cpu_avx2.cpp (built with AVX2 flags) and count_window_cpu_scalar.cpp.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "cpu/window/count_window_cpu_reduce.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window::detail {

// Slice hook: C[j] and A[j] of every chunk, one chunk per loop iteration, SIMD inside.
template <class Isa>
class CpuSlice {
 public:
  explicit CpuSlice(int threads) : threads_(threads) {}

  template <class Agg>
  ChunkPartials<typename Agg::Acc> allocate(Agg, const ChunkGeometry& g, const typename Agg::Input* in) {
    using Acc = typename Agg::Acc;
    ChunkPartials<Acc> p;
    if (g.slide == 1) {  // every chunk is one value: C = lift(in), r = 0
      p.lifted = in;
      return p;
    }
    const bool full = g.full_chunks > 0;
    const bool head = g.rest != 0 || !full;
    storage_ = AlignedBuffer<std::byte>(g.chunks * sizeof(Acc) * ((full ? 1 : 0) + (head ? 1 : 0)));
    Acc* at = reinterpret_cast<Acc*>(storage_.data());
    if (full) {
      p.full = at;
      at += g.chunks;
    }
    if (head) p.head = at;
    return p;
  }

  template <class Agg>
  void slice(Agg, const ChunkGeometry& g, const typename Agg::Input* in,
             const ChunkPartials<typename Agg::Acc>& p) {
    using Acc = typename Agg::Acc;
    if (p.lifted != nullptr) return;
    const auto chunks = static_cast<std::int64_t>(g.chunks);
    const std::uint64_t s = g.slide, r = g.rest, q = g.full_chunks;
    // C is read for j < K + q - 1 only; the last chunk contributes its head alone.
    const std::uint64_t last_full = g.windows + q - 1;
#pragma omp parallel for schedule(static) num_threads(threads())
    for (std::int64_t jj = 0; jj < chunks; ++jj) {
      const auto j = static_cast<std::uint64_t>(jj);
      const typename Agg::Input* base = in + j * s;
      const Acc a = r != 0 ? reduce<Isa, Agg>(base, r, j * s) : Agg::identity();
      if (p.head != nullptr) p.head[j] = a;
      if (q > 0 && j < last_full) p.full[j] = Agg::combine(a, reduce<Isa, Agg>(base + r, s - r, j * s + r));
    }
  }

  int threads() const noexcept {
    return threads_ > 0 ? threads_ : omp_get_max_threads();
  }

 private:
  int threads_;
  AlignedBuffer<std::byte> storage_;
};

// Expand hook: van Herk / Gil-Werman over blocks of q chunks. For the windows starting in
// block b, out[k] = Suf(k) + Pre(k + q - 1) (+ A[k + q]), where Suf runs to the end of block b
// and Pre from the start of block b + 1; a window starting on a block boundary is Suf alone.
template <class Isa>
class CpuExpand {
 public:
  explicit CpuExpand(int threads) : threads_(threads) {}

  template <class Agg>
  void expand(Agg, const ChunkGeometry& g, const ChunkPartials<typename Agg::Acc>& p,
              typename Agg::Acc* out) {
    using Acc = typename Agg::Acc;
    using T = typename Agg::Input;
    const std::uint64_t windows = g.windows, q = g.full_chunks;
    const int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
    if (q == 0) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(windows); ++k) out[k] = p.head[k];
      return;
    }
    const T* lifted = static_cast<const T*>(p.lifted);
    const Acc* full = p.full;
    const auto chunk = [&](std::uint64_t j) {
      return lifted != nullptr ? lift<Agg>(lifted[j], {static_cast<std::int64_t>(j)}) : full[j];
    };
    const auto blocks = static_cast<std::int64_t>((windows + q - 1) / q);
    const auto grain = static_cast<int>(std::max<std::uint64_t>(1, 4096 / q));
#pragma omp parallel for schedule(dynamic, grain) num_threads(threads)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint64_t k0 = static_cast<std::uint64_t>(b) * q;
      const std::uint64_t k1 = std::min(k0 + q, windows);
      Acc acc = Agg::identity();
      for (std::uint64_t j = k0 + q; j-- > k0;) {
        acc = Agg::combine(chunk(j), acc);
        if (j < k1) out[j] = acc;
      }
      Acc pre = Agg::identity();
      for (std::uint64_t k = k0 + 1; k < k1; ++k) {
        pre = Agg::combine(pre, chunk(k + q - 1));
        out[k] = Agg::combine(out[k], pre);
      }
      if (g.rest != 0)
        for (std::uint64_t k = k0; k < k1; ++k) out[k] = Agg::combine(out[k], p.head[k + q]);
    }
  }

 private:
  int threads_;
};

// One run through the template with this ISA's hooks. The positional aggregates expand into
// their accumulators, then split them into the value and the position columns.
template <class Isa>
void count_window_cpu(const CountWindowArgs& args, int threads) {
  const ChunkGeometry g = make_geometry(args.in.size, args.spec.length, args.spec.slide);
  visit_aggregate(args.in.type, args.kind, [&](auto agg) {
    using Agg = decltype(agg);
    using T = typename Agg::Input;
    using Acc = typename Agg::Acc;
    CpuSlice<Isa> slice(threads);
    CpuExpand<Isa> expand(threads);
    if constexpr (SelectingAggregate<Agg>) {
      AlignedBuffer<Acc> acc(g.windows);
      slice_and_expand<Agg>(slice, expand, g, args.in.as<T>(), acc.data());
      T* values = args.out.as<T>();
      const auto windows = static_cast<std::int64_t>(g.windows);
#pragma omp parallel for schedule(static) num_threads(slice.threads())
      for (std::int64_t k = 0; k < windows; ++k) {
        values[k] = acc.data()[k].value;
        args.positions[k] = acc.data()[k].at;
      }
    } else {
      slice_and_expand<Agg>(slice, expand, g, args.in.as<T>(), args.out.as<Acc>());
    }
  });
}

}  // namespace sextant::window::detail
