// Per-core throughput of the CPU stream-window backend (pane stage + window stage), for
// tuning its kernels on a shared machine: the paper's 32-byte tuples (four int32, two float,
// one int64 timestamp) are generated and projected to the operator's columns (key, ts, value,
// watermark) before timing; then the batches are pushed and polled. Time is the process's CPU
// time (all its threads), so tuples per CPU second is the per-core rate even when other
// programs share the cores; run with OMP_WAIT_POLICY=passive when threads > 1, so that
// waiting threads do not count. Sum over time windows W = 1 s, S = 10 ms (time unit: us).
//
//   cpu_stream_kernel [tuples] [keys] [max delay us] [batch] [threads] [tuples per us] [hot|nowm]
//
// Timestamps: the i-th tuple is generated at i / rate us and delayed by uniform [0, delay]
// (bounded-delay watermark: nothing is late). "hot" pushes one batch (from the middle of the
// stream) over and over without watermarks: the input stays in cache and nothing closes, which
// isolates the pane-stage kernel from memory bandwidth. "nowm" streams every batch from memory
// without watermarks: nothing closes, so against the default it prices releasing panes and
// computing windows, and against "hot" it prices reading the batches from memory.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "cpu/window/stream_window_cpu.hpp"
#include "templates/window/stream_operator.hpp"

namespace {

using namespace sextant::window;

struct Tuple32 {
  std::int32_t key, a, b, value;
  float x, y;
  std::int64_t ts;
};
static_assert(sizeof(Tuple32) == 32);

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoull(argv[1]) : 16'000'000;
  const auto keys = static_cast<std::uint32_t>(argc > 2 ? std::stoul(argv[2]) : 1);
  const std::int64_t delay = argc > 3 ? std::stoll(argv[3]) : 0;
  const std::size_t batch = argc > 4 ? std::stoull(argv[4]) : 1'000'000;
  const int threads = argc > 5 ? std::stoi(argv[5]) : 1;
  const std::int64_t rate = argc > 6 ? std::stoll(argv[6]) : 1;
  const std::string mode = argc > 7 ? argv[7] : "";
  const bool hot = mode == "hot";
  const bool no_watermarks = hot || mode == "nowm";

  std::mt19937_64 rng(42);
  std::vector<Tuple32> tuples(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto g = static_cast<std::int64_t>(i + 1);  // generated at g / rate us
    Tuple32& t = tuples[i];
    t = {};
    t.key = static_cast<std::int32_t>(keys == 1 ? 0 : rng() % keys);
    t.value = static_cast<std::int32_t>(rng() % 1000);
    const std::int64_t late_by =
        delay == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(delay * rate + 1));
    t.ts = std::max<std::int64_t>(0, g - late_by) / rate;
  }
  std::vector<StreamKey> k(n);
  std::vector<std::int64_t> ts(n), wm(n);
  std::vector<std::int32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = static_cast<StreamKey>(tuples[i].key);
    ts[i] = tuples[i].ts;
    v[i] = tuples[i].value;
    wm[i] = static_cast<std::int64_t>(i + 1) / rate - delay;
  }

  StreamWindowOptions options;
  options.specs = {{WindowType::time, 1'000'000, 10'000}};
  double best = 1e300;
  std::uint64_t windows = 0;
  for (int rep = 0; rep < 5; ++rep) {
    StreamWindowOperator<CpuStreamBackend, SumAggregate<std::int32_t>> op(options, {threads});
    WindowColumns<std::int64_t> out;
    const double start = cpu_seconds();
    for (std::size_t b0 = 0; b0 < n; b0 += batch) {
      const std::size_t b = hot ? n / 2 : b0, e = std::min(n, b + batch);
      StreamBatch<std::int32_t> sb;
      if (keys > 1) sb.keys = std::span<const StreamKey>(k).subspan(b, e - b);
      sb.timestamps = std::span<const std::int64_t>(ts).subspan(b, e - b);
      sb.values = std::span<const std::int32_t>(v).subspan(b, e - b);
      if (!no_watermarks) sb.watermarks = std::span<const std::int64_t>(wm).subspan(b, e - b);
      op.push(sb);
      out.clear();
      op.poll(out);
    }
    best = std::min(best, cpu_seconds() - start);
    windows = op.counters().windows_emitted;
  }
  std::printf(
      "tuples=%zu keys=%u rate=%lld/us delay=%lldus batch=%zu threads=%d windows=%llu: %.1f M tuples per CPU "
      "second (best of 5)%s\n",
      n, keys, static_cast<long long>(rate), static_cast<long long>(delay), batch, threads,
      static_cast<unsigned long long>(windows), static_cast<double>(n) / best / 1e6,
      hot             ? " [hot: one batch in cache, no watermarks]"
      : no_watermarks ? " [no watermarks: nothing closes]"
                      : "");
}
