// scratch: the operator alone (no API column conversion), slide 1 in order, like fine.cpp
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "cpu/window/stream_window_cpu.hpp"
#include "templates/window/stream_operator.hpp"
using namespace sextant;
using namespace sextant::window;
int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 24);
  const std::int64_t w = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::size_t batch = 4096;
  std::vector<std::int64_t> ts(n), wm(n);
  std::vector<std::int32_t> v(n);
  std::uint64_t x = 88172645463325252ull;
  for (std::size_t i = 0; i < n; ++i) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; v[i] = (std::int32_t)(x % 1000000); ts[i] = (std::int64_t)i; wm[i] = (std::int64_t)i; }
  std::vector<double> t;
  std::uint64_t check = 0;
  for (int r = 0; r < reps; ++r) {
    StreamWindowOptions options;
    options.specs = {{WindowType::time, w, 1}};
    options.window_stage = WindowStageKind::scan;
    StreamWindowOperator<CpuStreamBackend, SumAggregate<std::int32_t>> op(options, CpuStreamConfig{1});
    std::vector<WindowResult<std::int64_t>> results;
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t sum = 0;
    for (std::size_t f = 0; f < n; f += batch) {
      const std::size_t m = std::min(batch, n - f);
      StreamBatch<std::int32_t> b;
      b.timestamps = {ts.data() + f, m};
      b.watermarks = {wm.data() + f, m};
      b.values = {v.data() + f, m};
      op.push(b);
      op.poll(results);
      sum += results.size();
      results.clear();
    }
    op.finish();
    op.poll(results);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    check = sum;
  }
  std::sort(t.begin(), t.end());
  std::printf("operator alone W=%lld: %.1f Mtuples/s (%llu)\n", (long long)w, n / t[t.size() / 2] / 1e6, (unsigned long long)check);
}
