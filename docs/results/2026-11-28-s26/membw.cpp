// Host memory bandwidth as the stream generator and the CPU operator see it: every thread writes
// (plain stores, as generate_columns does) or reads its part of a 2 GiB buffer that was touched
// before. g++ -O3 -march=native -fopenmp membw.cpp -o membw; ./membw [threads]
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  const std::size_t n = std::size_t{1} << 28;  // 2 GiB of int64
  std::vector<std::int64_t> a(n, 1);
  const auto now = [] { return std::chrono::steady_clock::now(); };
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = now();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::int64_t>(i) ^ rep;
    const double w = std::chrono::duration<double>(now() - t0).count();
    std::int64_t sum = 0;
    t0 = now();
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    const double r = std::chrono::duration<double>(now() - t0).count();
    std::printf("threads %d: write %.1f GB/s, read %.1f GB/s (%lld)\n", threads, 8.0 * n / w / 1e9,
                8.0 * n / r / 1e9, static_cast<long long>(sum & 1));
  }
}
