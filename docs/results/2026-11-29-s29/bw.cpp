// Scratch: memory bandwidth of this host (read, write, copy), T threads, medians of 5.
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  const std::size_t n = std::size_t(1) << 27;  // 1 GiB of 8-byte words
  const int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  std::uint64_t* a = static_cast<std::uint64_t*>(std::aligned_alloc(64, n * 8));
  std::uint64_t* b = static_cast<std::uint64_t*>(std::aligned_alloc(64, n * 8));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) a[i] = i, b[i] = 0;
  auto time = [&](auto&& f) {
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[2];
  };
  std::uint64_t sink = 0;
  const double gib = double(n * 8) / 1e9;
  double tr = time([&] {
    std::uint64_t s = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    sink += s;
  });
  double tw = time([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) b[i] = i;
  });
  double tc = time([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i];
  });
  std::printf("threads %d: read %.1f GB/s, write %.1f GB/s, copy %.1f GB/s (read+write counted) sink %llu\n", threads,
              gib / tr, gib / tw, 2 * gib / tc, (unsigned long long)(sink & 1));
}
