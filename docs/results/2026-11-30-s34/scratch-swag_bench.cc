// Scratch driver (session 34, never committed): IBM sliding-window-aggregators' DABA Lite, a
// count-based window of W tuples, in order: insert, evict beyond W, one query per tuple summed
// into a checksum. Arguments: tuples, repeats. Prints the median M tuples/s per W.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "AggregationFunctions.hpp"
#include "DABALite.hpp"

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 24);
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<std::uint64_t> values(n);
  std::uint64_t x = 88172645463325252ull;
  for (auto& v : values) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    v = x % 1000;
  }
  for (const std::size_t w : {std::size_t{1} << 10, std::size_t{1} << 20}) {
    std::vector<double> rates;
    std::uint64_t check = 0;
    for (int r = 0; r < repeats; ++r) {
      auto agg = dabalite::make_aggregate(Sum<std::uint64_t, std::uint64_t, std::uint64_t>(), 0);
      const auto t0 = std::chrono::steady_clock::now();
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        agg.insert(values[i]);
        if (i >= w) agg.evict();
        sum += agg.query();
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      rates.push_back(static_cast<double>(n) / s / 1e6);
      check = sum;
    }
    std::sort(rates.begin(), rates.end());
    std::printf("dabalite W=%zu median %.1f M tuples/s (runs", w, rates[rates.size() / 2]);
    for (const double r : rates) std::printf(" %.1f", r);
    std::printf(") checksum %llu\n", static_cast<unsigned long long>(check));
  }
}
