#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <sys/mman.h>
#include <thread>
int main(int argc, char** argv) {
  size_t bytes = size_t(atol(argv[1])) << 20; int huge = atoi(argv[2]);
  for (int r = 0; r < 3; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    char* p = (char*)mmap(nullptr, bytes, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::thread a([&]{ memset(p, 1, bytes/2); }); memset(p + bytes/2, 1, bytes/2); a.join();
    auto t1 = std::chrono::steady_clock::now();
    std::thread b([&]{ memset(p, 2, bytes/2); }); memset(p + bytes/2, 2, bytes/2); b.join();
    auto t2 = std::chrono::steady_clock::now();
    munmap(p, bytes);
    auto t3 = std::chrono::steady_clock::now();
    printf("huge=%d first touch %.3f s, rewrite %.3f s, munmap %.3f\n", huge, std::chrono::duration<double>(t1-t0).count(), std::chrono::duration<double>(t2-t1).count(), std::chrono::duration<double>(t3-t2).count());
  }
}
