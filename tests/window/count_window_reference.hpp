// Test data and the independent reference for count windows: a naive loop over each window's
// values (long double / wrapping uint64 sums), random columns with many ties and the extreme
// values of each type, and a comparison that is exact for integers and bounded for floating sums.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "templates/window/count_window.hpp"
#include "testing/random_data.hpp"

namespace sextant::testing {

// Random values with ties: half from a tiny pool, the rest spread; integers include the
// extremes now and then (sums then wrap, which the reference reproduces).
template <class T>
std::vector<T> window_values(std::size_t n, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    const std::uint64_t r = rng.next();
    const unsigned pick = static_cast<unsigned>(r % 1000);
    if constexpr (std::is_integral_v<T>) {
      if (pick == 0)
        x = std::numeric_limits<T>::max();
      else if (pick == 1)
        x = std::numeric_limits<T>::min();
      else if (pick < 500)
        x = static_cast<T>(static_cast<std::int64_t>((r >> 32) % 7) - 3);
      else if constexpr (sizeof(T) == 4)
        x = static_cast<T>(static_cast<std::uint32_t>(r >> 32));
      else
        x = static_cast<T>(static_cast<std::int64_t>(r >> 23) - (std::int64_t{1} << 40));
    } else {
      if (pick < 400)
        x = static_cast<T>(static_cast<double>((r >> 32) % 9) * 0.75 - 3.0);  // ties, exact sums
      else if (pick < 402)
        x = static_cast<T>(pick == 400 ? 0.0 : -0.0);
      else
        x = static_cast<T>((static_cast<double>(r >> 11) * 0x1.0p-53 - 0.5) * 2000.0);
    }
  }
  return v;
}

// The windows a test checks: all of them when the naive reference costs at most `budget`
// value visits, otherwise the first and last 256 and an even spread in between (ascending).
inline std::vector<std::uint64_t> windows_to_check(std::uint64_t windows, std::uint64_t w,
                                                   std::uint64_t budget) {
  std::vector<std::uint64_t> out;
  if (windows * w <= budget) {
    for (std::uint64_t k = 0; k < windows; ++k) out.push_back(k);
    return out;
  }
  const std::uint64_t spread = std::max<std::uint64_t>(1, budget / w);
  const std::uint64_t step = std::max<std::uint64_t>(1, windows / spread);
  for (std::uint64_t k = 0; k < windows; ++k)
    if (k < 256 || k + 256 >= windows || k % step == 0) out.push_back(k);
  return out;
}

// a before b in value order, with -0.0 before +0.0 (the positional functions' tie rule).
template <class T>
bool reference_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (a == b) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

// The position of window [first, first + w)'s smallest (argmin) or largest value: the first
// such position.
template <class T>
std::uint64_t reference_arg(const std::vector<T>& x, std::uint64_t first, std::uint64_t w, bool largest) {
  std::uint64_t best = first;
  for (std::uint64_t j = first + 1; j < first + w; ++j)
    if (largest ? reference_less(x[best], x[j]) : reference_less(x[j], x[best])) best = j;
  return best;
}

// want[i] = the result of window which[i]; `positions` (if given) gets the positions of the
// positional functions.
template <class T>
window::Column reference_windows(const std::vector<T>& x, std::uint64_t w, std::uint64_t s,
                                 window::AggregateKind kind, const std::vector<std::uint64_t>& which,
                                 std::vector<std::int64_t>* positions = nullptr) {
  window::Column out = window::make_column(window::result_type(window::value_type_of<T>, kind), which.size());
  if (positions != nullptr) positions->assign(which.size(), -1);
  const auto select = [&](std::size_t i, std::uint64_t at, auto& r) {
    using R = typename std::decay_t<decltype(r)>::value_type;
    r[i] = static_cast<R>(x[at]);
    if (positions != nullptr) (*positions)[i] = static_cast<std::int64_t>(at);
  };
  std::visit(
      [&](auto& r) {
        using R = typename std::decay_t<decltype(r)>::value_type;
        for (std::size_t i = 0; i < which.size(); ++i) {
          const T* first = x.data() + which[i] * s;
          switch (kind) {
            case window::AggregateKind::count:
              r[i] = static_cast<R>(w);
              break;
            case window::AggregateKind::min:
              r[i] = static_cast<R>(*std::min_element(first, first + w));
              break;
            case window::AggregateKind::max:
              r[i] = static_cast<R>(*std::max_element(first, first + w));
              break;
            case window::AggregateKind::argmin:
              select(i, reference_arg(x, which[i] * s, w, false), r);
              break;
            case window::AggregateKind::argmax:
              select(i, reference_arg(x, which[i] * s, w, true), r);
              break;
            case window::AggregateKind::first:
              select(i, which[i] * s, r);
              break;
            case window::AggregateKind::last:
              select(i, which[i] * s + w - 1, r);
              break;
            case window::AggregateKind::sum:
              if constexpr (std::is_integral_v<T>) {
                std::uint64_t acc = 0;
                for (std::uint64_t j = 0; j < w; ++j)
                  acc += static_cast<std::uint64_t>(static_cast<std::int64_t>(first[j]));
                r[i] = static_cast<R>(static_cast<std::int64_t>(acc));
              } else {
                long double acc = 0;
                for (std::uint64_t j = 0; j < w; ++j) acc += first[j];
                r[i] = static_cast<R>(acc);
              }
              break;
          }
        }
      },
      out);
  return out;
}

// Compares the positions of the positional functions window by window, exactly.
inline ::testing::AssertionResult same_positions(std::span<const std::int64_t> got,
                                                 const std::vector<std::int64_t>& want,
                                                 const std::vector<std::uint64_t>& which,
                                                 std::uint64_t windows) {
  if (got.size() != windows)
    return ::testing::AssertionFailure() << "got " << got.size() << " positions, want " << windows;
  for (std::size_t c = 0; c < which.size(); ++c)
    if (got[which[c]] != want[c])
      return ::testing::AssertionFailure()
             << "window " << which[c] << ": position " << got[which[c]] << ", want " << want[c];
  return ::testing::AssertionSuccess();
}

// Compares got with want window by window. Floating sums may differ by rounding: the bound
// allows for summing each window in another order (1e-11 of the window's absolute sum) and
// for the prefix algorithms' subtraction of running sums (1e-12 of the absolute running sum).
template <class T>
::testing::AssertionResult same_windows(const window::Column& got, const window::Column& want,
                                        const std::vector<std::uint64_t>& which, const std::vector<T>& x,
                                        std::uint64_t w, std::uint64_t s, window::AggregateKind kind) {
  if (got.index() != want.index()) return ::testing::AssertionFailure() << "result type differs";
  const std::uint64_t windows = window::CountWindowSpec{w, s}.window_count(x.size());
  if (window::size_of(got) != windows)
    return ::testing::AssertionFailure() << "got " << window::size_of(got) << " windows, want " << windows;
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  std::visit(
      [&](const auto& g) {
        using R = typename std::decay_t<decltype(g)>::value_type;
        const std::span<const R> r = window::column_as<R>(want);
        const bool tolerant = std::is_floating_point_v<T> && kind == window::AggregateKind::sum;
        long double running_abs = 0;  // sum of |x| before the current window's end
        std::uint64_t running_end = 0;
        for (std::size_t c = 0; c < which.size(); ++c) {
          const std::uint64_t i = which[c];
          if (!tolerant) {
            if (!(g[i] == r[c])) {
              result = ::testing::AssertionFailure() << "window " << i << " [" << i * s << ", " << i * s + w
                                                     << "): got " << +g[i] << ", want " << +r[c];
              return;
            }
            continue;
          }
          long double window_abs = 0;
          for (std::uint64_t j = i * s; j < i * s + w; ++j)
            window_abs += std::fabs(static_cast<long double>(x[j]));
          for (; running_end < i * s + w; ++running_end)
            running_abs += std::fabs(static_cast<long double>(x[running_end]));
          const long double tol = 1e-11L * window_abs + 1e-12L * running_abs + 1e-300L;
          const long double diff = std::fabs(static_cast<long double>(g[i]) - static_cast<long double>(r[c]));
          if (!(diff <= tol)) {
            result = ::testing::AssertionFailure()
                     << "window " << i << " [" << i * s << ", " << i * s + w << "): got " << g[i] << ", want "
                     << r[c] << " (|diff| " << static_cast<double>(diff) << " > tolerance "
                     << static_cast<double>(tol) << ")";
            return;
          }
        }
      },
      got);
  return result;
}

}  // namespace sextant::testing
