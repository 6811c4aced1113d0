// Sorting and gathering large columns on a few threads of the call's own (std::jthread): the
// host-side steps of a result's canonical order, for callers with no team of their own. Slices
// of the work run on `threads` threads, the caller's being one of them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <utility>
#include <vector>

#include "core/column_vector.hpp"

namespace sextant {
namespace detail {

// f(part) for every part of [0, parts): parts - 1 on new threads, part 0 on the caller.
template <class F>
void run_parts(std::size_t parts, const F& f) {
  std::vector<std::jthread> helpers;
  helpers.reserve(parts > 0 ? parts - 1 : 0);
  for (std::size_t p = 1; p < parts; ++p) helpers.emplace_back([&f, p] { f(p); });
  if (parts > 0) f(0);
}  // the helpers join here

}  // namespace detail

// Sorts `v` (a total order: equal elements are interchangeable) on `threads` threads: each sorts
// one slice, then neighbouring sorted slices merge in pairs, a round at a time, until one run is
// left.
template <class T>
void sort_on_threads(ColumnVector<T>& v, int threads) {
  const std::size_t n = v.size();
  const auto slices = static_cast<std::size_t>(std::max(threads, 1));
  std::vector<std::size_t> bound(slices + 1);
  for (std::size_t s = 0; s <= slices; ++s) bound[s] = n / slices * s + std::min(n % slices, s);
  detail::run_parts(slices, [&](std::size_t s) { std::sort(v.data() + bound[s], v.data() + bound[s + 1]); });
  if (slices == 1) return;
  ColumnVector<T> other(n);
  T* from = v.data();
  T* to = other.data();
  for (std::size_t width = 1; width < slices; width *= 2) {
    detail::run_parts((slices + 2 * width - 1) / (2 * width), [&](std::size_t q) {
      const std::size_t s = q * 2 * width;
      const std::size_t lo = bound[s], mid = bound[std::min(s + width, slices)];
      const std::size_t hi = bound[std::min(s + 2 * width, slices)];
      std::merge(from + lo, from + mid, from + mid, from + hi, to + lo);
    });
    std::swap(from, to);
  }
  if (from != v.data()) v.swap(other);
}

// v[i] = v[order[i]] for every i (order a permutation of v's indices), on `threads` threads.
template <class T, class Index>
void gather_on_threads(ColumnVector<T>& v, const ColumnVector<Index>& order, int threads) {
  ColumnVector<T> out(v.size());
  const auto parts = static_cast<std::size_t>(std::max(threads, 1));
  const std::size_t n = order.size();
  detail::run_parts(parts, [&](std::size_t p) {
    for (std::size_t i = n * p / parts, e = n * (p + 1) / parts; i < e; ++i) out[i] = v[order[i]];
  });
  v = std::move(out);
}

}  // namespace sextant
