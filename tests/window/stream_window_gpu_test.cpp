// Stream windows on GPU 0 (label gpu; skipped without CUDA or a GPU): the shared conformance
// body (small chunks, so multi-chunk pushes run), then GPU-specific cases: batches far larger
// than a chunk, from pageable and from page-locked memory; a bad tuple in a later chunk; many
// keys with growing buffers. A throughput check runs when SEXTANT_STREAM_GPU_THROUGHPUT=1.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/config.hpp"
#include "tests/gpu/gpu_test_support.hpp"
#include "tests/window/stream_window_conformance.hpp"
#if SEXTANT_HAS_CUDA
#include "cpu/window/stream_window_cpu.hpp"
#include "gpu/window/stream_window_gpu.hpp"

using GpuBackend = sextant::window::GpuStreamBackend;

template <>
struct sextant::testing::StreamBackendTraits<GpuBackend> {
  static GpuBackend::Config config() { return {0, 1000}; }
  static std::string skip_reason() { return gpu_count() < 1 ? "needs 1 GPU" : ""; }
};

INSTANTIATE_STREAM_WINDOW_CONFORMANCE(Gpu, GpuBackend);

namespace sextant::testing {
namespace {

using namespace stream_conformance;
using window::StreamWindowOperator;
using window::WindowResult;

template <class V>
struct Columns {
  std::vector<window::StreamKey> keys;
  std::vector<std::int64_t> ts;
  std::vector<V> values;
  std::vector<std::int64_t> wms;
};

// The same columns in page-locked memory.
template <class V>
struct PinnedColumns {
  gpu::PinnedVector<window::StreamKey> keys;
  gpu::PinnedVector<std::int64_t> ts;
  gpu::PinnedVector<V> values;
  gpu::PinnedVector<std::int64_t> wms;
};

template <class C, class V>
void fill_columns(C& c, const std::vector<window::testing::RefTuple<V>>& tuples) {
  for (const auto& t : tuples) {
    c.keys.push_back(t.key);
    c.ts.push_back(t.ts);
    c.values.push_back(t.value);
    c.wms.push_back(t.wm);
  }
}

template <class C, class V>
window::StreamBatch<V> slice(const C& c, std::size_t begin, std::size_t end) {
  const auto part = [&](const auto& v) { return std::span(v.data() + begin, end - begin); };
  return {part(c.keys), part(c.ts), part(c.values), part(c.wms)};
}

// Pushes [0, n) in batches of `batch` from `columns`, then finishes; compares with the reference.
template <class A, class C>
void run_against_reference(const std::vector<window::testing::RefTuple<typename A::Input>>& tuples,
                           const C& columns, const window::StreamWindowOptions& options, std::size_t batch,
                           std::size_t max_batch) {
  window::testing::ReferenceCounts counts;
  const auto want = window::testing::reference_windows<A>(tuples, options, &counts);
  StreamWindowOperator<GpuBackend, A> op(options, {0, max_batch});
  std::vector<WindowResult<typename A::Output>> got;
  for (std::size_t begin = 0; begin < tuples.size(); begin += batch) {
    op.push(slice<C, typename A::Input>(columns, begin, std::min(tuples.size(), begin + batch)));
    op.poll(got);
  }
  op.finish();
  op.poll(got);
  window::testing::sort_results(got);
  EXPECT_TRUE(same_results(got, want, tolerance_of<A>()));
  EXPECT_EQ(op.counters().late_dropped, counts.late);
  EXPECT_EQ(op.counters().watermarks_ignored, counts.watermarks_ignored);
  EXPECT_EQ(op.counters().tuples_in, tuples.size());
}

StreamShape keyed_shape(std::size_t tuples, std::uint32_t keys, std::uint64_t seed) {
  StreamShape shape;
  shape.tuples = tuples;
  shape.keys = keys;
  shape.scatter_keys = true;
  shape.step = 3;
  shape.delay = 200;
  shape.wm_lag = 150;
  shape.wm_down = 0.01;
  shape.seed = seed;
  return shape;
}

TEST(GpuStreamWindow, SmallBatchLargerThanChunkPageableAndPinned) {
  SEXTANT_REQUIRE_GPUS(1);
  const auto tuples = make_stream<float>(keyed_shape(5000, 37, 1));
  Columns<float> pageable;
  PinnedColumns<float> pinned;
  fill_columns(pageable, tuples);
  fill_columns(pinned, tuples);
  const auto options = time_options({{100, 30}, {45, 45}}, 20);
  for (std::size_t max_batch : {7u, 640u}) {
    SCOPED_TRACE("max_batch " + std::to_string(max_batch));
    run_against_reference<window::SumAggregate<float>>(tuples, pageable, options, 2500, max_batch);
    run_against_reference<window::MaxAggregate<float>>(tuples, pinned, options, 5000, max_batch);
    run_against_reference<window::VarAggregate<float>>(tuples, pinned, count_options({{16, 5}}), 1300,
                                                       max_batch);
  }
}

TEST(GpuStreamWindow, LargeBatchesManyChunks) {
  SEXTANT_REQUIRE_GPUS(1);
  const auto tuples = make_stream<std::int32_t>(keyed_shape(200'000, 1000, 2));
  PinnedColumns<std::int32_t> pinned;
  fill_columns(pinned, tuples);
  run_against_reference<window::SumAggregate<std::int32_t>>(tuples, pinned, time_options({{600, 90}}, 50),
                                                            150'000, 32'768);
  run_against_reference<window::AvgAggregate<std::int32_t>>(tuples, pinned, count_options({{50, 20}}),
                                                            200'000, 65'536);
}

// Windows of 3000 panes with a tuple in nearly every pane: trees of 12 levels over thousands of
// leaves per round, more than one launch of the tree build (9 levels each), ragged block edges;
// one key (the carry appended) and three (merged), in and out of order, with ties.
TEST(GpuStreamWindow, TreesDeeperThanOneTileMatchTheReference) {
  SEXTANT_REQUIRE_GPUS(1);
  for (const std::uint32_t keys : {1u, 3u}) {
    for (const std::int64_t delay : {std::int64_t{0}, std::int64_t{400}}) {
      SCOPED_TRACE("keys " + std::to_string(keys) + ", delay " + std::to_string(delay));
      StreamShape shape;
      shape.tuples = 40'000;
      shape.keys = keys;
      shape.delay = delay;
      shape.wm_lag = delay;
      shape.seed = 11 + keys + static_cast<std::uint64_t>(delay);
      const auto tuples = make_stream<std::int64_t>(shape);
      PinnedColumns<std::int64_t> pinned;
      fill_columns(pinned, tuples);
      const auto options = time_options({{3000, 7}, {1500, 500}}, 0);
      run_against_reference<window::SumAggregate<std::int64_t>>(tuples, pinned, options, 4096, 1 << 20);
      run_against_reference<window::MinAggregate<std::int64_t>>(tuples, pinned, options, 9000, 1 << 20);
      run_against_reference<window::ArgMaxAggregate<std::int64_t>>(tuples, pinned, count_options({{2600, 3}}),
                                                                   5000, 1 << 20);
    }
  }
}

// 100 000 scattered keys arriving over growing batches: the key table, the slot arrays and every
// scratch buffer grow while the stream runs.
TEST(GpuStreamWindow, HundredThousandKeysGrowingBuffers) {
  SEXTANT_REQUIRE_GPUS(1);
  StreamShape shape = keyed_shape(600'000, 100'000, 3);
  shape.step = 1;
  shape.delay = 50;
  shape.wm_lag = 40;
  const auto tuples = make_stream<std::int64_t>(shape);
  Columns<std::int64_t> columns;
  fill_columns(columns, tuples);
  using A = window::MinAggregate<std::int64_t>;
  const auto options = time_options({{20, 5}}, 3);
  window::testing::ReferenceCounts counts;
  const auto want = window::testing::reference_windows<A>(tuples, options, &counts);
  StreamWindowOperator<GpuBackend, A> op(options, {0, 100'000});
  std::vector<WindowResult<std::int64_t>> got;
  std::size_t begin = 0;
  for (std::size_t batch = 10; begin < tuples.size(); batch *= 3) {
    const std::size_t end = std::min(tuples.size(), begin + batch);
    op.push(slice<Columns<std::int64_t>, std::int64_t>(columns, begin, end));
    op.poll(got);
    begin = end;
  }
  op.finish();
  op.poll(got);
  window::testing::sort_results(got);
  EXPECT_TRUE(same_results(got, want, 0));
  EXPECT_EQ(op.counters().late_dropped, counts.late);
}

// A negative timestamp in the third chunk of a push: the chunks before it were aggregated
// already and must be undone.
TEST(GpuStreamWindow, BadTupleInALaterChunkLeavesTheStageUnchanged) {
  SEXTANT_REQUIRE_GPUS(1);
  using A = window::SumAggregate<std::int64_t>;
  for (const auto& options : {time_options({{60, 20}}, 5), count_options({{6, 4}})}) {
    SCOPED_TRACE(describe(options));
    const auto tuples = make_stream<std::int64_t>(keyed_shape(3000, 50, 4));
    Columns<std::int64_t> columns;
    fill_columns(columns, tuples);
    auto want_tuples = tuples;
    want_tuples.erase(want_tuples.begin() + 1000, want_tuples.begin() + 2000);
    const auto want = window::testing::reference_windows<A>(want_tuples, options);

    StreamWindowOperator<GpuBackend, A> op(options, {0, 256});
    std::vector<WindowResult<std::int64_t>> got;
    op.push(slice<Columns<std::int64_t>, std::int64_t>(columns, 0, 1000));
    op.poll(got);
    const auto before = op.counters();
    Columns<std::int64_t> bad = columns;
    bad.ts[1000 + 700] = -5;
    try {
      op.push(slice<Columns<std::int64_t>, std::int64_t>(bad, 1000, 2000));
      ADD_FAILURE() << "accepted a negative timestamp";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find("700"), std::string::npos) << e.what();
    }
    EXPECT_EQ(op.counters().tuples_in, before.tuples_in);
    EXPECT_EQ(op.poll(got), 0u);
    op.push(slice<Columns<std::int64_t>, std::int64_t>(columns, 2000, 3000));
    op.finish();
    op.poll(got);
    window::testing::sort_results(got);
    EXPECT_TRUE(same_results(got, want, 0));
  }
}

TEST(GpuStreamWindow, NoSuchDevice) {
  SEXTANT_REQUIRE_GPUS(1);
  using A = window::SumAggregate<std::int64_t>;
  EXPECT_THROW((StreamWindowOperator<GpuBackend, A>(time_options({{4, 2}}), {gpu_count(), 1000})), Error);
}

// ---- throughput (SEXTANT_STREAM_GPU_THROUGHPUT=1) ----

struct ThroughputCase {
  const char* name;
  std::uint32_t keys;
  std::int64_t delay;  // average delay (uniform on [0, 2 delay]), microseconds
};

// Tuples/s end to end from page-locked host memory: sum of float, W = 1 s, S = 10 ms (time in
// microseconds), 10 tuples per microsecond, watermark = max timestamp - 2 delay.
double measure(const ThroughputCase& c, std::size_t batch, int batches) {
  using A = window::SumAggregate<float>;
  StreamWindowOperator<GpuBackend, A> op(time_options({{1'000'000, 10'000}}), {0, std::size_t{1} << 22});
  PinnedColumns<float> col;
  col.ts.resize(batch);
  col.values.resize(batch);
  col.wms.resize(batch);
  if (c.keys > 1) col.keys.resize(batch);
  std::mt19937_64 rng(42);
  std::int64_t max_ts = 0;
  std::uint64_t i = 0;
  std::vector<WindowResult<double>> out;
  double seconds = 0;
  std::size_t windows = 0;
  for (int b = 0; b < batches + 1; ++b) {  // batch 0 warms up
    for (std::size_t j = 0; j < batch; ++j, ++i) {
      const std::int64_t arrival = static_cast<std::int64_t>(i / 10);
      const std::int64_t d =
          c.delay == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * c.delay + 1));
      const std::int64_t ts = std::max<std::int64_t>(0, arrival - d);
      max_ts = std::max(max_ts, ts);
      col.ts[j] = ts;
      col.values[j] = static_cast<float>(rng() % 1000);
      col.wms[j] = max_ts - 2 * c.delay;
      if (c.keys > 1) col.keys[j] = static_cast<window::StreamKey>(rng() % c.keys);
    }
    const window::StreamBatch<float> view{col.keys, col.ts, col.values, col.wms};
    const auto t0 = std::chrono::steady_clock::now();
    op.push(view);
    out.clear();
    op.poll(out);
    const auto t1 = std::chrono::steady_clock::now();
    if (b > 0) {
      seconds += std::chrono::duration<double>(t1 - t0).count();
      windows += out.size();
    }
  }
  const double rate = static_cast<double>(batch) * batches / seconds;
  std::printf("throughput %-28s batch %9zu: %.3f G tuples/s (%zu windows)\n", c.name, batch, rate / 1e9,
              windows);
  return rate;
}

// Two tuples 10^8 apart under W = 10^6, S = 1: exactly 2 * 10^6 windows, the same as the CPU's,
// in time proportional to them (the GPU keeps only non-empty panes).
TEST(GpuStreamWindow, LonePanesUnderLongWindowsMatchTheCpu) {
  SEXTANT_REQUIRE_GPUS(1);
  using A = window::SumAggregate<std::int64_t>;
  window::StreamWindowOptions options;
  options.specs = {{window::WindowType::time, 1'000'000, 1}};
  const std::vector<std::int64_t> ts = {100'000'000, 200'000'000}, values = {5, 7};
  const auto run = [&](auto backend, auto config) {
    window::StreamWindowOperator<decltype(backend), A> op(options, config);
    op.push({{}, ts, values, {}});
    op.finish();
    std::vector<window::WindowResult<std::int64_t>> out;
    op.poll(out);
    window::testing::sort_results(out);
    return out;
  };
  const auto started = std::chrono::steady_clock::now();
  const auto gpu = run(GpuBackend{}, GpuBackend::Config{0, 1000});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto cpu = run(window::CpuStreamBackend{}, window::CpuStreamConfig{});
  ASSERT_EQ(gpu.size(), 2'000'000u);
  EXPECT_TRUE(gpu == cpu);
  EXPECT_LT(seconds, 10.0);
}

TEST(GpuStreamWindow, Throughput) {
  SEXTANT_REQUIRE_GPUS(1);
  if (std::getenv("SEXTANT_STREAM_GPU_THROUGHPUT") == nullptr)
    GTEST_SKIP() << "set SEXTANT_STREAM_GPU_THROUGHPUT=1";
  const double pcie = gpu::pinned_copy_rate(0, std::size_t{1} << 28);
  std::printf(
      "throughput PCIe host->device, pinned: %.1f GB/s = %.2f G tuples/s at 20 B (1 key), %.2f at 24 B\n",
      pcie / 1e9, pcie / 20e9, pcie / 24e9);
  for (std::size_t batch : {std::size_t{1} << 22, std::size_t{1} << 24}) {
    measure({"1 key, in order", 1, 0}, batch, 6);
    measure({"1 key, 1 s average delay", 1, 1'000'000}, batch, 6);
    measure({"1000 keys, 1 s average delay", 1000, 1'000'000}, batch, 6);
  }
}

}  // namespace
}  // namespace sextant::testing

#else
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StreamWindowConformance);
TEST(GpuStreamWindow, NeedsCuda) {
  GTEST_SKIP() << "built without CUDA";
}
#endif
