#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
int main(int argc, char**) {
  const size_t bytes = size_t(480) << 20;
  for (int r = 0; r < 3; ++r)
  for (int huge = 0; huge < 2; ++huge) {
    auto t0 = std::chrono::steady_clock::now();
    char* p = static_cast<char*>(::operator new(bytes, std::align_val_t{2 << 20}));
    if (huge) madvise(p, bytes, MADV_HUGEPAGE);
    for (size_t i = 0; i < bytes; i += 64) p[i] = 1;
    auto t1 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < bytes; i += 64) p[i] += 1;
    auto t2 = std::chrono::steady_clock::now();
    ::operator delete(p, std::align_val_t{2 << 20});
    auto t3 = std::chrono::steady_clock::now();
    std::printf("huge=%d first touch %.1f ms, second %.1f ms, free %.1f ms\n", huge,
      std::chrono::duration<double, std::milli>(t1 - t0).count(), std::chrono::duration<double, std::milli>(t2 - t1).count(), std::chrono::duration<double, std::milli>(t3 - t2).count());
  }
}
