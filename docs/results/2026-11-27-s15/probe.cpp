#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
static double secs(clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count(); }
template <class F> double par(int t, F f) { auto s = clk::now(); std::vector<std::thread> v; for (int i = 0; i < t; ++i) v.emplace_back(f, i); for (auto& x : v) x.join(); return secs(s); }
int main() {
  const size_t bytes = size_t{3} << 30; const int T = 16;
  for (int huge = 0; huge < 2; ++huge) for (int round = 0; round < 2; ++round) {
    char* p = (char*)mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (huge) madvise(p, bytes, MADV_HUGEPAGE); else madvise(p, bytes, MADV_NOHUGEPAGE);
    double touch = par(T, [&](int i) { size_t a = bytes / T * i, b = bytes / T * (i + 1); for (size_t k = a; k < b; k += 4096) p[k] = 1; });
    double fill = par(T, [&](int i) { size_t a = bytes / T * i; memset(p + a, 2, bytes / T); });
    double read = par(T, [&](int i) { size_t a = bytes / T * i; volatile long s = 0; const long* q = (const long*)(p + a); long acc = 0; for (size_t k = 0; k < bytes / T / 8; ++k) acc += q[k]; s = acc; });
    auto s = clk::now(); munmap(p, bytes); double un = secs(s);
    printf("huge=%d round=%d: first touch %.3f s (%.1f GB/s), memset %.3f s (%.1f GB/s), read %.3f s (%.1f GB/s), munmap %.3f s\n", huge, round, touch, bytes / touch / 1e9, fill, bytes / fill / 1e9, read, bytes / read / 1e9, un);
  }
  // one thread touching
  char* p = (char*)mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  madvise(p, bytes, MADV_NOHUGEPAGE);
  double touch = par(1, [&](int) { for (size_t k = 0; k < bytes; k += 4096) p[k] = 1; });
  printf("1 thread first touch 4K pages: %.3f s (%.2f us/page)\n", touch, touch / (bytes / 4096) * 1e6);
}
