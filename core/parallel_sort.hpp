// Ordering and gathering large columns: the host-side steps of a result's canonical order. The
// radix order and the gather run on a few threads of the call's own (std::jthread), for callers
// with no team of their own, the caller's thread being one of them; the counting pass they share
// runs on whatever its caller hands it (the command line's team, or one thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

// [begin, end) of part p of n items cut into `parts`.
inline std::pair<std::size_t, std::size_t> part_bounds(std::size_t n, std::size_t parts,
                                                       std::size_t p) noexcept {
  return {n / parts * p + std::min(n % parts, p), n / parts * (p + 1) + std::min(n % parts, p + 1)};
}

}  // namespace detail

// One stable counting pass over items [0, n): put(slot, i) for every i, the slots ordered by
// digit_of(i) in [0, radix), items of one digit in index order. `parts` slices count and scatter
// their items apart, each slice's work given to run(parts, f) as f(slice); `at` keeps the
// counters between calls. `starts`, when given, receives each digit's first slot (radix + 1
// entries, the last one n).
template <class Run, class DigitOf, class Put>
void counting_scatter(std::size_t n, std::size_t radix, std::size_t parts, const Run& run,
                      const DigitOf& digit_of, const Put& put, std::vector<std::vector<std::size_t>>& at,
                      std::vector<std::size_t>* starts = nullptr) {
  at.resize(parts);
  run(parts, [&](std::size_t p) {
    auto& count = at[p];
    count.assign(radix, 0);
    const auto [b, e] = detail::part_bounds(n, parts, p);
    for (std::size_t i = b; i < e; ++i) ++count[digit_of(i)];
  });
  // Digit d of slice p goes after every smaller digit, and after digit d of the slices before.
  if (starts != nullptr) starts->resize(radix + 1);
  std::size_t sum = 0;
  for (std::size_t d = 0; d < radix; ++d) {
    if (starts != nullptr) (*starts)[d] = sum;
    for (std::size_t p = 0; p < parts; ++p) sum += std::exchange(at[p][d], sum);
  }
  if (starts != nullptr) (*starts)[radix] = sum;
  run(parts, [&](std::size_t p) {
    auto& next = at[p];
    const auto [b, e] = detail::part_bounds(n, parts, p);
    for (std::size_t i = b; i < e; ++i) put(next[digit_of(i)]++, i);
  });
}

// The stable order of n items by key_of(i) (a std::uint64_t below 2^bits): order[i] is the index of the i-th
// smallest, equal keys in index order. A least-significant-digit radix sort: one counting pass per digit of
// at most 11 bits (its counters stay in L1), by slices on `threads` threads; key_of is called twice per item
// in the first pass, from several threads.
template <class KeyOf>
ColumnVector<std::size_t> radix_order_on_threads(std::size_t n, const KeyOf& key_of, unsigned bits,
                                                 int threads) {
  struct Item {
    std::uint64_t key;
    std::size_t index;
  };
  constexpr unsigned max_digit_bits = 11;
  ColumnVector<std::size_t> order(n);
  const unsigned passes = (bits + max_digit_bits - 1) / max_digit_bits;
  if (passes == 0) {  // one key: the order is the identity
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    return order;
  }
  const unsigned digit_bits = (bits + passes - 1) / passes;
  const std::size_t radix = std::size_t{1} << digit_bits;
  const std::uint64_t mask = radix - 1;
  const auto parts = static_cast<std::size_t>(std::max(threads, 1));
  const auto run = [](std::size_t count, const auto& f) { detail::run_parts(count, f); };
  // Passes but the last scatter to `to`, which becomes the next pass's `from`.
  ColumnVector<Item> to(passes > 1 ? n : 0), from(passes > 2 ? n : 0);
  std::vector<std::vector<std::size_t>> at;  // per slice and digit: a count, then a slot
  for (unsigned pass = 0; pass < passes; ++pass) {
    const unsigned shift = pass * digit_bits;
    const bool first = pass == 0, last = pass + 1 == passes;
    // The first pass reads the keys in index order, the others the previous pass's items.
    const auto item = [&](std::size_t i) { return first ? Item{key_of(i), i} : from[i]; };
    counting_scatter(
        n, radix, parts, run, [&](std::size_t i) { return (item(i).key >> shift) & mask; },
        [&](std::size_t slot, std::size_t i) {
          if (last)
            order[slot] = item(i).index;
          else
            to[slot] = item(i);
        },
        at);
    if (!last) from.swap(to);
  }
  return order;
}

// [first, last) holds items in order of group(item). Rows of one group normally come in order of
// start(item) already; each stretch of one group where they do not is sorted by start, stably
// (equal starts keep their order).
template <class It, class Group, class Start>
void sort_stretches_by_start(It first, It last, const Group& group, const Start& start) {
  const auto n = last - first;
  for (decltype(last - first) i = 1; i < n; ++i) {
    if (!(start(first[i]) < start(first[i - 1])) || group(first[i]) != group(first[i - 1])) continue;
    const auto g = group(first[i]);
    auto lo = i - 1, hi = i + 1;
    while (lo > 0 && group(first[lo - 1]) == g) --lo;
    while (hi < n && group(first[hi]) == g) ++hi;
    std::stable_sort(first + lo, first + hi,
                     [&](const auto& a, const auto& b) { return start(a) < start(b); });
    i = hi - 1;
  }
}

// v[i] = v[order[i]] for every i (order a permutation of v's indices), on `threads` threads.
template <class T, class Index>
void gather_on_threads(ColumnVector<T>& v, const ColumnVector<Index>& order, int threads) {
  ColumnVector<T> out(v.size());
  const auto parts = static_cast<std::size_t>(std::max(threads, 1));
  detail::run_parts(parts, [&](std::size_t p) {
    const auto [b, e] = detail::part_bounds(order.size(), parts, p);
    for (std::size_t i = b; i < e; ++i) out[i] = v[order[i]];
  });
  v = std::move(out);
}

}  // namespace sextant
