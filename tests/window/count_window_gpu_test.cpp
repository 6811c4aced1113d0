// Count windows on GPU 0 (label gpu; skipped without CUDA or a GPU): the shared conformance
// body for each of the five algorithms and for the selector, the in-device API (unaligned
// input, every result written, host pointers refused) and the selector on the measured profile.
#include <gtest/gtest.h>

#include <cstring>

#include "api/window_count.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "templates/window/count_window_planner.hpp"
#include "tests/gpu/gpu_test_support.hpp"
#include "tests/window/count_window_conformance.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/window/count_window_gpu.hpp"
#endif

namespace sextant::testing {
namespace {

using window::AggregateKind;
using window::CountAlgorithm;
using window::ValueType;

std::string gpu_unavailable() {
  if (!build::has_cuda) return "built without CUDA";
  if (gpu_count() < 1) return "needs 1 GPU";
  return {};
}

bool gpu_can_run(CountAlgorithm a, const window::CountWindowProblem& p) {
#if SEXTANT_HAS_CUDA
  if (a != CountAlgorithm::automatic) return window::can_run(a, p, window::gpu::device_profile(0));
  for (const auto& [algorithm, r] : window::plan_all(p, window::gpu::device_profile(0)))
    if (r.plan) return true;
  return false;
#else
  (void)a;
  (void)p;
  return false;
#endif
}

CountWindowBackend gpu_backend(CountAlgorithm a, std::uint64_t max_updates) {
  CountWindowBackend b;
  b.name = a == CountAlgorithm::automatic ? "slider" : std::string(window::to_string(a));
  b.unavailable = gpu_unavailable;
  b.can_run = [a](const window::CountWindowProblem& p) { return gpu_can_run(a, p); };
  b.run = [a](window::ColumnView in, window::CountWindowSpec spec, AggregateKind kind) {
    window::CountWindowOptions options;
    options.algorithm = a;
    auto r = window::aggregate_count(in, spec, kind, DeviceId{DeviceKind::gpu, 0}, options);
    return CountWindowOutput{std::move(r.values), std::move(r.positions)};
  };
  b.max_updates = max_updates;
  b.prefix_only_for_invertible = a == CountAlgorithm::direct_prefix || a == CountAlgorithm::reduced_prefix;
  return b;
}

// REDUCED-PREFIX's three configurations, each forced through run_plan (the named algorithm
// gets whichever the planner prefers).
CountWindowBackend reduced_variant_backend(window::ReducedVariant variant, const char* name) {
  CountWindowBackend b = gpu_backend(CountAlgorithm::reduced_prefix, 0);
  b.name = name;
#if SEXTANT_HAS_CUDA
  b.run = [variant](window::ColumnView in, window::CountWindowSpec spec, AggregateKind kind) {
    static window::gpu::GpuWorkspace workspace(0);
    const window::CountWindowProblem problem{in.size, spec, in.type, kind};
    window::CountPlan plan =
        *window::plan_count_window(CountAlgorithm::reduced_prefix, problem, window::gpu::device_profile(0))
             .plan;
    plan.reduced = variant;
    window::gpu::DeviceColumn device_in(0, in.type, in.size);
    device_in.upload(in);
    window::gpu::DeviceColumn device_out(0, window::result_type(in.type, kind), problem.windows());
    window::gpu::run_plan(0, plan, {device_in.view(), device_out.mutable_view(), spec, kind}, workspace);
    return CountWindowOutput{device_out.download(), {}};
  };
#else
  (void)variant;
#endif
  return b;
}

// GBL and SH update every window of every value (fan-out atomics): their n is capped.
INSTANTIATE_TEST_SUITE_P(
    Gpu, CountWindowConformance,
    ::testing::Values(gpu_backend(CountAlgorithm::gbl, 30'000'000),
                      gpu_backend(CountAlgorithm::sh, 300'000'000), gpu_backend(CountAlgorithm::coop, 0),
                      gpu_backend(CountAlgorithm::direct_prefix, 0),
                      gpu_backend(CountAlgorithm::reduced_prefix, 0),
                      reduced_variant_backend(window::ReducedVariant::chunk_scan,
                                              "reduced-prefix-chunk-scan"),
                      reduced_variant_backend(window::ReducedVariant::tile_scan, "reduced-prefix-tile-scan"),
                      gpu_backend(CountAlgorithm::block_scan, 0), gpu_backend(CountAlgorithm::automatic, 0)),
    backend_name);

#if SEXTANT_HAS_CUDA

template <class T>
window::Column host_column(const std::vector<T>& v) {
  return window::Column(v);
}

// Input at an address that is not 16-byte aligned, results poisoned beforehand: every window
// must be written and right, for every algorithm that can run.
TEST(CountWindowDevice, UnalignedInputAndPoisonedOutput) {
  SEXTANT_REQUIRE_GPUS(1);
  const std::size_t n = 200003;
  for (ValueType type : {ValueType::int32, ValueType::float32, ValueType::int64, ValueType::float64})
    for (auto [w, s] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {1, 1}, {5, 3}, {1000, 7}, {33, 100}, {20000, 1024}, {4097, 4097}})
      for (AggregateKind kind : all_kinds())
        window::visit_value_type(type, [&](auto t) {
          using T = decltype(t);
          const std::vector<T> values = window_values<T>(n, w * 131 + s);
          window::gpu::DeviceColumn in(0, type, n, /*offset=*/1);
          in.upload(window::ColumnView(std::span<const T>(values)));
          const std::uint64_t k = window::CountWindowSpec{w, s}.window_count(n);
          window::gpu::DeviceColumn out(0, window::result_type(type, kind), k);
          const auto which = windows_to_check(k, w, 3'000'000);
          const window::Column want = reference_windows(values, w, s, kind, which);
          for (CountAlgorithm a :
               {CountAlgorithm::gbl, CountAlgorithm::sh, CountAlgorithm::coop, CountAlgorithm::direct_prefix,
                CountAlgorithm::reduced_prefix, CountAlgorithm::automatic}) {
            const window::CountWindowProblem p{n, {w, s}, type, kind};
            if (!gpu_can_run(a, p) || (a == CountAlgorithm::gbl && w / s > 64)) continue;
            out.fill_bytes(0xA5);
            window::gpu::aggregate_count_device(0, {in.view(), out.mutable_view(), {w, s}, kind}, a);
            const auto same = same_windows(out.download(), want, which, values, w, s, kind);
            ASSERT_TRUE(same) << window::to_string(a) << " " << window::to_string(type) << " "
                              << window::to_string(kind) << " W=" << w << " S=" << s << ": "
                              << same.message();
          }
        });
}

// A few small cases of every algorithm: the subset scripts/gpu-window.sh runs under
// compute-sanitizer (memcheck, racecheck), where the full suite would take too long.
TEST(CountWindowDevice, SmallForSanitizers) {
  SEXTANT_REQUIRE_GPUS(1);
  const std::size_t n = 30011;
  for (ValueType type : {ValueType::int32, ValueType::float64})
    for (auto [w, s] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{5, 3}, {33, 100}, {1000, 7}})
      for (AggregateKind kind : {AggregateKind::sum, AggregateKind::max, AggregateKind::argmin})
        window::visit_value_type(type, [&](auto t) {
          using T = decltype(t);
          const std::vector<T> values = window_values<T>(n, w + s);
          window::gpu::DeviceColumn in(0, type, n, /*offset=*/1);
          in.upload(window::ColumnView(std::span<const T>(values)));
          const std::uint64_t k = window::CountWindowSpec{w, s}.window_count(n);
          window::gpu::DeviceColumn out(0, window::result_type(type, kind), k);
          window::gpu::DeviceColumn positions(0, ValueType::int64, window::reports_position(kind) ? k : 0);
          std::int64_t* positions_out =
              window::reports_position(kind) ? positions.mutable_view().as<std::int64_t>() : nullptr;
          const auto which = windows_to_check(k, w, 1'000'000);
          std::vector<std::int64_t> want_positions;
          const window::Column want = reference_windows(values, w, s, kind, which, &want_positions);
          for (CountAlgorithm a : window::all_count_algorithms) {
            if (!gpu_can_run(a, {n, {w, s}, type, kind}) || (a == CountAlgorithm::gbl && w / s > 64))
              continue;
            out.fill_bytes(0x5A);
            positions.fill_bytes(0x5A);
            window::gpu::aggregate_count_device(
                0, {in.view(), out.mutable_view(), {w, s}, kind, positions_out}, a);
            auto same = same_windows(out.download(), want, which, values, w, s, kind);
            if (same && positions_out != nullptr) {
              const window::Column got = positions.download();
              same = same_positions(window::column_as<std::int64_t>(got), want_positions, which, k);
            }
            ASSERT_TRUE(same) << window::to_string(a) << " " << window::to_string(kind) << " W=" << w
                              << " S=" << s << ": " << same.message();
            if (a == CountAlgorithm::reduced_prefix) {  // each configuration
              static window::gpu::GpuWorkspace workspace(0);
              for (window::ReducedVariant v :
                   {window::ReducedVariant::chunk_scan, window::ReducedVariant::tile_scan}) {
                window::CountPlan plan =
                    *window::plan_count_window(a, {n, {w, s}, type, kind}, window::gpu::device_profile(0))
                         .plan;
                plan.reduced = v;
                out.fill_bytes(0x5A);
                window::gpu::run_plan(0, plan, {in.view(), out.mutable_view(), {w, s}, kind}, workspace);
                const auto same_variant = same_windows(out.download(), want, which, values, w, s, kind);
                ASSERT_TRUE(same_variant) << "reduced-prefix variant " << static_cast<int>(v) << " W=" << w
                                          << " S=" << s << ": " << same_variant.message();
              }
            }
          }
        });
}

TEST(CountWindowDevice, HostPointersAreRefused) {
  SEXTANT_REQUIRE_GPUS(1);
  const std::vector<std::int32_t> in(100, 1);
  std::vector<std::int64_t> out(100);
  try {
    window::gpu::aggregate_count_device(0,
                                        {window::ColumnView(std::span<const std::int32_t>(in)),
                                         window::MutableColumnView(std::span(out)),
                                         {10, 1},
                                         AggregateKind::sum},
                                        CountAlgorithm::coop);
    FAIL() << "host memory accepted as device memory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
  }
}

TEST(CountWindowDevice, NamedAlgorithmThatCannotRunIsAnError) {
  SEXTANT_REQUIRE_GPUS(1);
  const std::vector<std::int32_t> in(100, 1);
  window::CountWindowOptions options;
  options.algorithm = CountAlgorithm::direct_prefix;
  try {
    window::aggregate_count(std::span<const std::int32_t>(in), 10, 1, AggregateKind::min,
                            DeviceId{DeviceKind::gpu, 0}, options);
    FAIL() << "DIRECT-PREFIX accepted min";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("invertible"), std::string::npos) << e.what();
  }
}

TEST(CountWindowDevice, ProfileIsMeasuredAndPlausible) {
  SEXTANT_REQUIRE_GPUS(1);
  const window::DeviceProfile& d = window::gpu::device_profile(0);
  EXPECT_GT(d.read_bandwidth, 50e9);
  EXPECT_LT(d.read_bandwidth, 50e12);
  EXPECT_GT(d.global_atomic_rate, 1e8);
  EXPECT_GT(d.shared_atomic_rate, 1e9);
  EXPECT_GT(d.shared_per_block, 16u * 1024);
  std::printf(
      "profile %s: read %.0f GB/s, write %.0f GB/s, atomics %.3g/s (GBL pattern %.3g/s), shared atomics "
      "%.3g/s, launch %.1f us\n",
      d.name.c_str(), d.read_bandwidth / 1e9, d.write_bandwidth / 1e9, d.global_atomic_rate,
      d.contended_atomic_rate, d.shared_atomic_rate, d.launch_seconds * 1e6);
}

TEST(CountWindowDevice, SelectorNeverChoosesWhatCannotRunOnThisGpu) {
  SEXTANT_REQUIRE_GPUS(1);
  const window::DeviceProfile& d = window::gpu::device_profile(0);
  for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{1} << 30})
    for (std::uint64_t w = 1; w <= (std::uint64_t{1} << 22); w *= 2)
      for (std::uint64_t s : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{64}, w, w + 1, 2 * w})
        for (ValueType t : {ValueType::int32, ValueType::float64})
          for (AggregateKind k : all_kinds()) {
            const window::CountWindowProblem p{n, {w, s}, t, k};
            const auto plan = window::select_count_window(CountAlgorithm::automatic, p, d);
            ASSERT_TRUE(window::can_run(plan.algorithm, p, d)) << plan.describe();
          }
}

#endif  // SEXTANT_HAS_CUDA

}  // namespace
}  // namespace sextant::testing
