// Count windows on the CPU (runs everywhere): the shared conformance body for the CPU
// specialisation, the spec and geometry, the API's errors, and the selector's cost model on
// synthetic device profiles (it must never choose an algorithm that cannot run).
#include "cpu/window/count_window_cpu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <thread>
#include <variant>
#include <vector>

#include "api/window_count.hpp"
#include "core/error.hpp"
#include "cpu/window/count_window_variants.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "scheduler/topology.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/chunk_geometry.hpp"
#include "templates/window/count_window_planner.hpp"
#include "templates/window/count_window_policy.hpp"
#include "tests/window/count_window_conformance.hpp"

namespace sextant::testing {
namespace {

using window::AggregateKind;
using window::CountAlgorithm;
using window::ValueType;

// A result column's values as a std::vector, to compare with a literal.
template <class T>
std::vector<T> values_of(const window::Column& column) {
  const std::span<const T> values = window::column_as<T>(column);
  return {values.begin(), values.end()};
}

// The CPU workers every conformance run shares (at most 4 cores): a scheduler per run would spend
// the edge cases' thousands of tiny runs starting threads.
scheduler::SchedulerTeam& shared_cpu_team() {
  static scheduler::Scheduler s = [] {
    scheduler::SchedulerOptions options;
    options.layout.cpu_cores = 4;
    return scheduler::Scheduler(scheduler::discover_topology(), options);
  }();
  static scheduler::SchedulerTeam team(s, scheduler::TeamMode::cpu_only);
  return team;
}

// One registered variant, run alone through the template's driver (the API runs them all: see
// CpuRunsTheRegisteredVariantsOnTheScheduler).
template <class Variant>
CountWindowBackend cpu_variant_backend() {
  CountWindowBackend b;
  b.name = Variant::name();
  b.unavailable = [] {
    return Variant{}.can_run({})
               ? std::string()
               : "this CPU lacks " + std::string(Variant::isa) + " (or SEXTANT_SIMD rules it out)";
  };
  b.can_run = [](const window::CountWindowProblem&) { return true; };
  b.random_scale_down = 8;
  b.run = [](window::ColumnView in, window::CountWindowSpec spec, AggregateKind kind) {
    CountWindowOutput out;
    out.values = window::make_column(window::result_type(in.type, kind), spec.window_count(in.size));
    if (window::reports_position(kind)) out.positions.resize(spec.window_count(in.size));
    const window::CpuCountVariant only = window::erase_count_variant<Variant>();
    window::count_window_on_team(shared_cpu_team(),
                                 {in, window::mutable_view(out.values), spec, kind,
                                  out.positions.empty() ? nullptr : out.positions.data()},
                                 std::span(&only, 1));
    return out;
  };
  return b;
}

std::vector<CountWindowBackend> cpu_variant_backends() {
  return std::apply(
      [](auto... v) { return std::vector<CountWindowBackend>{cpu_variant_backend<decltype(v)>()...}; },
      window::CpuCountWindowVariants{});
}

INSTANTIATE_TEST_SUITE_P(Cpu, CountWindowConformance, ::testing::ValuesIn(cpu_variant_backends()),
                         backend_name);

// The SIMD variants this CPU runs; the scalar fallback runs only where none does.
std::vector<std::string> runnable_simd_variants() {
  std::vector<std::string> runnable;
  std::apply(
      [&](auto... v) {
        ((v.can_run() && !decltype(v)::fallback ? runnable.push_back(std::string(decltype(v)::isa)) : void()),
         ...);
      },
      window::CpuCountWindowVariants{});
  return runnable.empty() ? std::vector<std::string>{"scalar"} : runnable;
}

// The API runs every registered variant on the scheduler's CPU workers and says which ran: with
// their shares when several can run (AVX-512 and AVX2), else the one's name.
TEST(CountWindowApi, CpuRunsTheRegisteredVariantsOnTheScheduler) {
  const std::vector<std::string> runnable = runnable_simd_variants();
  // Long enough for the workers (a shorter column runs on the calling thread).
  std::vector<std::int32_t> v(window::policy::cpu_inline_values + 4096);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>((i * 7919) % 1000) - 500;
  const auto r = window::aggregate_count(std::span<const std::int32_t>(v), 64, 16, AggregateKind::max);
  ASSERT_EQ(r.algorithm.rfind("cpu (", 0), 0u) << r.algorithm;
  std::string rest = r.algorithm.substr(5);
  if (runnable.size() > 1)
    EXPECT_NE(rest.find('%'), std::string::npos) << "the workers' shares: " << r.algorithm;
  else
    EXPECT_EQ(r.algorithm, "cpu (" + runnable[0] + ")");
  int named = 0;
  for (const std::string& isa : {std::string("avx512"), std::string("avx2"), std::string("scalar")}) {
    if (rest.find(isa + " ") == std::string::npos && rest.find(isa + ")") == std::string::npos) continue;
    ++named;
    EXPECT_NE(std::find(runnable.begin(), runnable.end(), isa), runnable.end()) << isa << " cannot run here";
  }
  EXPECT_GE(named, 1) << r.algorithm;
  const auto got = window::column_as<std::int32_t>(r.values);
  ASSERT_EQ(got.size(), (v.size() - 64) / 16 + 1);
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_EQ(got[k], *std::max_element(v.begin() + static_cast<std::ptrdiff_t>(k * 16),
                                        v.begin() + static_cast<std::ptrdiff_t>(k * 16 + 64)))
        << "window " << k;
}

// A column shorter than policy::cpu_inline_values runs on the calling thread and never asks for
// the machine (no topology discovery, no workers); a longer one goes to the workers. Both exact.
TEST(CountWindowApi, ShortColumnsRunOnTheCallingThreadLongOnesOnTheWorkers) {
  for (const std::uint64_t n :
       {window::policy::cpu_inline_values - 1, window::policy::cpu_inline_values + 100}) {
    std::vector<std::int64_t> v(n);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<std::int64_t>((i * 2654435761u) % 1001) - 500;
    const window::CountWindowSpec spec{48, 32};
    std::vector<std::int64_t> out(spec.window_count(v.size()));
    int asked = 0;
    const std::string ran =
        window::count_window_on_cpu({window::ColumnView(std::span<const std::int64_t>(v)),
                                     window::MutableColumnView(std::span(out)), spec, AggregateKind::sum},
                                    2, [&] {
                                      ++asked;
                                      return scheduler::synthetic_topology("package:1 core:2 pu:1");
                                    });
    const bool short_column = n < window::policy::cpu_inline_values;
    EXPECT_EQ(asked, short_column ? 0 : 1) << n;
    // The workers' shares name each variant that ran: only a long column, where several can run.
    EXPECT_EQ(ran.find('%') != std::string::npos, !short_column && runnable_simd_variants().size() > 1)
        << n << ": " << ran;
    for (std::size_t k = 0; k < out.size(); ++k) {
      std::int64_t want = 0;
      for (std::size_t i = k * 32; i < k * 32 + 48; ++i) want += v[i];
      ASSERT_EQ(out[k], want) << n << ", window " << k;
    }
  }
}

// The scalar variant twice: "slow" sleeps 50 us per item before its work, "fast" does not.
std::vector<window::CpuCountVariant> slow_and_fast_variants() {
  using Scalar = window::CpuCountWindowOn<cpu::ScalarIsa>;
  window::CpuCountVariant fast = window::erase_count_variant<Scalar>();
  fast.name = "fast";
  fast.fallback = false;
  window::CpuCountVariant slow = fast;
  slow.name = "slow";
  slow.slice = [](const window::CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
    std::this_thread::sleep_for(std::chrono::microseconds(50 * (end - begin)));
    Scalar::slice(run, begin, end);
  };
  slow.expand = [](const window::CpuCountRun& run, std::uint64_t begin, std::uint64_t end) {
    std::this_thread::sleep_for(std::chrono::microseconds(50 * (end - begin)));
    Scalar::expand(run, begin, end);
  };
  return {slow, fast};
}

// Sums of v's windows on the team with these variants, each against brute force.
void expect_sums_on_team(scheduler::SchedulerTeam& team, const std::vector<std::int64_t>& v,
                         window::CountWindowSpec spec, std::span<const window::CpuCountVariant> variants) {
  std::vector<std::int64_t> out(spec.window_count(v.size()));
  window::count_window_on_team(team,
                               {window::ColumnView(std::span<const std::int64_t>(v)),
                                window::MutableColumnView(std::span(out)), spec, AggregateKind::sum},
                               variants);
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::int64_t want = 0;
    for (std::size_t i = k * spec.slide; i < k * spec.slide + spec.length; ++i) want += v[i];
    ASSERT_EQ(out[k], want) << v.size() << " values, window " << k;
  }
}

// A deliberately slow variant beside a fast one: every worker tries both, keeps the fast one, and
// the result is exact whichever ran where.
TEST(CountWindowApi, SchedulerAbandonsASlowVariant) {
  const std::vector<window::CpuCountVariant> variants = slow_and_fast_variants();
  scheduler::Scheduler s(scheduler::synthetic_topology("package:1 core:2 pu:1"));
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::cpu_only);
  std::vector<std::int64_t> v(400000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>((i * 2654435761u) % 1001) - 500;
  const window::CountWindowSpec spec{40, 20};
  expect_sums_on_team(team, v, spec, variants);
  std::size_t slow_items = 0, fast_items = 0;
  for (const scheduler::DeviceStats& d : s.statistics().devices())
    for (const scheduler::VariantStats& x : d.variants)
      (x.name == "slow" ? slow_items : fast_items) += x.items;
  EXPECT_GT(slow_items, 0u) << "the slow variant was never tried";
  EXPECT_LT(slow_items * 10, fast_items) << "slow " << slow_items << ", fast " << fast_items;
}

// A team kept across columns remembers what its workers measured: the second column runs the fast
// variant alone, without trying the slow one again. One worker, so that it has measured both on the
// first column whatever the machine's load (a worker that another finished before tries them later).
TEST(CountWindowApi, AKeptTeamSkipsTheTrialsOnTheNextColumn) {
  const std::vector<window::CpuCountVariant> variants = slow_and_fast_variants();
  scheduler::Scheduler s(scheduler::synthetic_topology("package:1 core:1 pu:1"));
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::cpu_only);
  const window::CountWindowSpec spec{40, 20};
  for (int column = 0; column < 2; ++column) {
    std::vector<std::int64_t> v(400000 + 1000 * column);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<std::int64_t>((i * 2654435761u + column) % 1001) - 500;
    s.reset_statistics();
    expect_sums_on_team(team, v, spec, variants);
    std::size_t slow_items = 0;
    for (const scheduler::DeviceStats& d : s.statistics().devices())
      for (const scheduler::VariantStats& x : d.variants) slow_items += x.name == "slow" ? x.items : 0;
    if (column == 0)
      EXPECT_GT(slow_items, 0u) << "the slow variant was never tried";
    else
      EXPECT_EQ(slow_items, 0u) << "the kept team tried the slow variant again";
  }
}

// CountWindows: one object for a series of columns (short ones on the calling thread, long ones on
// the workers it keeps), each exact against brute force, whatever the order, with start() or without.
TEST(CountWindowApi, CountWindowsServesASeriesOfColumns) {
  for (const bool start_first : {false, true}) {
    window::CountWindows windows(DeviceId{}, {CountAlgorithm::automatic, 2});
    if (start_first) windows.start();
    const std::uint64_t long_n = window::policy::cpu_inline_values + 777;
    for (const std::uint64_t n : {long_n, std::uint64_t{5000}, long_n + 64, std::uint64_t{0}}) {
      std::vector<std::int32_t> v(n);
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<std::int32_t>((i * 7919) % 61) - 30;  // ties
      for (const AggregateKind kind : {AggregateKind::min, AggregateKind::sum}) {
        const window::CountWindowSpec spec{96, 24};
        const auto r = windows.aggregate(window::ColumnView(std::span<const std::int32_t>(v)), spec, kind);
        ASSERT_EQ(r.algorithm.rfind("cpu", 0), 0u) << r.algorithm;
        const std::size_t windows_expected = spec.window_count(n);
        if (kind == AggregateKind::min) {
          const auto got = r.values_as<std::int32_t>();
          ASSERT_EQ(got.size(), windows_expected);
          for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_EQ(got[k], *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(k * 24),
                                                v.begin() + static_cast<std::ptrdiff_t>(k * 24 + 96)))
                << n << ", window " << k;
        } else {
          const auto got = r.values_as<std::int64_t>();
          ASSERT_EQ(got.size(), windows_expected);
          for (std::size_t k = 0; k < got.size(); ++k) {
            std::int64_t want = 0;
            for (std::size_t i = k * 24; i < k * 24 + 96; ++i) want += v[i];
            ASSERT_EQ(got[k], want) << n << ", window " << k;
          }
        }
      }
    }
  }
  EXPECT_THROW(window::CountWindows(DeviceId{}, {CountAlgorithm::coop, 0}), Error);
}

TEST(CountWindowSpec, CountsOnlyFullWindows) {
  const window::CountWindowSpec spec{4, 2};
  EXPECT_EQ(spec.window_count(0), 0u);
  EXPECT_EQ(spec.window_count(3), 0u);
  EXPECT_EQ(spec.window_count(4), 1u);
  EXPECT_EQ(spec.window_count(5), 1u);
  EXPECT_EQ(spec.window_count(6), 2u);
  EXPECT_EQ(spec.used_length(7), 6u);
  EXPECT_EQ((window::CountWindowSpec{3, 5}.window_count(14)), 3u);  // [0,3) [5,8) [10,13)
}

TEST(CountWindowSpec, RejectsZeroAndHugeParameters) {
  for (auto [w, s] : {std::pair<std::uint64_t, std::uint64_t>{0, 1}, {1, 0}, {(1ull << 40) + 1, 1}}) {
    try {
      window::CountWindowSpec{w, s}.validate();
      FAIL() << "W=" << w << " S=" << s << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
      EXPECT_NE(std::string(e.what()).find(w == 0 || w > (1ull << 40) ? "length" : "slide"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("1.."), std::string::npos) << e.what();
    }
  }
}

TEST(ChunkGeometry, SplitsWindowsIntoFullChunksAndAHead) {
  const auto g = window::make_geometry(100, 10, 4);  // W = 2*4 + 2
  EXPECT_EQ(g.windows, 23u);
  EXPECT_EQ(g.full_chunks, 2u);
  EXPECT_EQ(g.rest, 2u);
  EXPECT_EQ(g.read_length, 4u);
  EXPECT_EQ(g.chunks, 25u);
  EXPECT_EQ(g.used, 98u);
  const auto gap = window::make_geometry(100, 3, 10);  // S > W: only the heads are read
  EXPECT_EQ(gap.full_chunks, 0u);
  EXPECT_EQ(gap.read_length, 3u);
  EXPECT_EQ(gap.first_window_ending_after(5), 1u);  // window 0 is [0, 3)
  EXPECT_EQ(gap.last_window_starting_by(5), 0u);    // a gap value: no window contains 5
}

TEST(CountWindowApi, ResultTypesFollowTheDocumentedRules) {
  const std::vector<std::int32_t> v = {1, 2, 3, 4};
  const auto sum = window::aggregate_count(std::span<const std::int32_t>(v), 2, 1, AggregateKind::sum);
  EXPECT_EQ(values_of<std::int64_t>(sum.values), (std::vector<std::int64_t>{3, 5, 7}));
  const auto mx = window::aggregate_count(std::span<const std::int32_t>(v), 3, 1, AggregateKind::max);
  EXPECT_EQ(values_of<std::int32_t>(mx.values), (std::vector<std::int32_t>{3, 4}));
  const std::vector<float> f = {0.5f, 0.25f};
  const auto fs = window::aggregate_count(std::span<const float>(f), 2, 2, AggregateKind::sum);
  EXPECT_EQ(values_of<double>(fs.values), (std::vector<double>{0.75}));
  const auto cnt = window::aggregate_count(std::span<const float>(f), 1, 1, AggregateKind::count);
  EXPECT_EQ(values_of<std::int64_t>(cnt.values), (std::vector<std::int64_t>{1, 1}));
}

// Result columns leave new values uninitialised on resize (core/column_vector.hpp); make_column
// still promises zeros.
TEST(CountWindowApi, MakeColumnGivesZerosOfTheType) {
  for (const ValueType t : {ValueType::int32, ValueType::int64, ValueType::float32, ValueType::float64}) {
    const window::Column c = window::make_column(t, 1000);
    EXPECT_EQ(window::type_of(c), t);
    ASSERT_EQ(window::size_of(c), 1000u);
    std::visit(
        [](const auto& v) { EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](auto x) { return x == 0; })); },
        c);
  }
}

TEST(CountWindowApi, Int32SumsDoNotOverflow) {
  const std::vector<std::int32_t> v(10, std::numeric_limits<std::int32_t>::max());
  const auto r = window::aggregate_count(std::span<const std::int32_t>(v), 10, 1, AggregateKind::sum);
  EXPECT_EQ(values_of<std::int64_t>(r.values).at(0), 10LL * std::numeric_limits<std::int32_t>::max());
}

TEST(CountWindowApi, CpuRejectsNamedAlgorithms) {
  const std::vector<std::int32_t> v = {1, 2, 3};
  window::CountWindowOptions options;
  options.algorithm = CountAlgorithm::coop;
  try {
    window::aggregate_count(std::span<const std::int32_t>(v), 1, 1, AggregateKind::sum, {}, options);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("algorithm"), std::string::npos);
  }
}

// A variant's own entry (tests, benchmarks): its hooks alone on a scheduler of its own.
TEST(CountWindowApi, VariantRunsAloneOnItsOwnCores) {
  std::vector<std::int32_t> v(5000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>((i * 37) % 101) - 50;
  const window::CountWindowSpec spec{30, 7};
  std::vector<std::int32_t> out(spec.window_count(v.size()));
  window::CpuCountWindowOn<cpu::ScalarIsa>{2}.run({window::ColumnView(std::span<const std::int32_t>(v)),
                                                   window::MutableColumnView(std::span(out)), spec,
                                                   AggregateKind::min});
  for (std::size_t k = 0; k < out.size(); ++k)
    ASSERT_EQ(out[k], *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(k * 7),
                                        v.begin() + static_cast<std::ptrdiff_t>(k * 7 + 30)))
        << "window " << k;
}

TEST(CountWindowApi, WrongOutputTypeIsRejected) {
  const std::vector<std::int32_t> in = {1, 2};
  std::vector<std::int32_t> out(2);
  const window::CpuCountWindowOn<cpu::ScalarIsa> cpu;
  try {
    cpu.run({window::ColumnView(std::span<const std::int32_t>(in)),
             window::MutableColumnView(std::span(out)),
             {1, 1},
             AggregateKind::sum});
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int64"), std::string::npos) << e.what();
  }
}

TEST(CountWindowApi, ParsersNameTheParameter) {
  EXPECT_EQ(window::parse_count_algorithm("--algorithm", "reduced-prefix"), CountAlgorithm::reduced_prefix);
  EXPECT_EQ(window::parse_value_type("--value-type", "double"), ValueType::float64);
  try {
    window::parse_aggregate("--agg", "avg");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--agg"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sum, count, min, max, argmin, argmax, first or last"),
              std::string::npos);
  }
}

// A small GPU: 48 KiB per block, 64 KiB per SM, 1 GiB free.
window::DeviceProfile small_profile() {
  window::DeviceProfile d = window::reference_h100_profile();
  d.name = "small";
  d.multiprocessors = 8;
  d.shared_per_block = 48 * 1024;
  d.shared_per_sm = 64 * 1024;
  d.free_memory = std::uint64_t{1} << 30;
  return d;
}

TEST(CountWindowSelector, NeverChoosesAnAlgorithmThatCannotRun) {
  std::vector<std::uint64_t> params;
  for (std::uint64_t p = 1; p <= (std::uint64_t{1} << 24); p *= 4) params.push_back(p);
  for (std::uint64_t p : {3, 7, 33, 100, 1000, 4097, 100003}) params.push_back(p);
  int checked = 0;
  for (const auto& profile : {window::reference_h100_profile(), small_profile()})
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 20,
                            std::uint64_t{1} << 30, std::uint64_t{1} << 34})
      for (std::uint64_t w : params)
        for (std::uint64_t s : params)
          for (ValueType t : {ValueType::int32, ValueType::int64, ValueType::float32, ValueType::float64})
            for (AggregateKind k : all_kinds()) {
              const window::CountWindowProblem p{n, {w, s}, t, k};
              const window::CountPlan plan =
                  window::select_count_window(CountAlgorithm::automatic, p, profile);
              ASSERT_TRUE(window::can_run(plan.algorithm, p, profile)) << plan.describe();
              if (!window::is_invertible(k)) {
                ASSERT_NE(plan.algorithm, CountAlgorithm::direct_prefix);
                ASSERT_NE(plan.algorithm, CountAlgorithm::reduced_prefix);
              }
              ASSERT_LE(plan.shared_bytes, profile.shared_per_block) << plan.describe();
              ASSERT_LE(plan.workspace_bytes, profile.free_memory) << plan.describe();
              ASSERT_GT(plan.predicted_seconds, 0) << plan.describe();
              ++checked;
            }
  EXPECT_GT(checked, 50000);
}

TEST(CountWindowSelector, ReportsWhyAnAlgorithmCannotRun) {
  const auto h100 = window::reference_h100_profile();
  const window::CountWindowProblem min_problem{1 << 20, {64, 4}, ValueType::int32, AggregateKind::min};
  const auto direct = window::plan_count_window(CountAlgorithm::direct_prefix, min_problem, h100);
  EXPECT_FALSE(direct.plan);
  EXPECT_NE(direct.reason.find("invertible"), std::string::npos) << direct.reason;
  const window::CountWindowProblem wide{1 << 24, {1 << 20, 1}, ValueType::int64, AggregateKind::sum};
  const auto sh = window::plan_count_window(CountAlgorithm::sh, wide, h100);
  EXPECT_FALSE(sh.plan);
  EXPECT_NE(sh.reason.find("shared memory"), std::string::npos) << sh.reason;
  auto tiny = h100;
  tiny.free_memory = 1 << 20;
  EXPECT_FALSE(window::can_run(CountAlgorithm::direct_prefix, wide, tiny));
  try {
    window::select_count_window(CountAlgorithm::sh, wide, h100);
    FAIL() << "SH accepted a fan-out beyond shared memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
}

TEST(CountWindowSelector, FollowsThePapersRegions) {
  const auto h100 = window::reference_h100_profile();
  const auto choose = [&](std::uint64_t w, std::uint64_t s, AggregateKind k = AggregateKind::sum) {
    return window::select_count_window(CountAlgorithm::automatic,
                                       {std::uint64_t{1} << 30, {w, s}, ValueType::int32, k}, h100)
        .algorithm;
  };
  EXPECT_EQ(choose(1024, 1024), CountAlgorithm::coop);            // tumbling: one pass
  EXPECT_EQ(choose(1 << 20, 4), CountAlgorithm::reduced_prefix);  // fan-out 2^18: prefix sums
  // max has no inverse: the paper's regions give COOP-OPT, whose expansion combines 2^18 chunk
  // partials per window; BLOCK-SCAN's two scans cost O(n) whatever the fan-out.
  EXPECT_EQ(choose(1 << 20, 4, AggregateKind::max), CountAlgorithm::block_scan);
  EXPECT_EQ(choose(64, 16, AggregateKind::max), CountAlgorithm::coop);  // fan-out 4: one pass
}

}  // namespace
}  // namespace sextant::testing

// Count windows: the positional functions lack the traits GBL/SH/COOP-OPT (a device atomic) and
// the prefix algorithms (an inverse) require, so those cannot be instantiated with them.
namespace sextant::testing {
namespace {
using window::Aggregate;
static_assert(!window::InvertibleAggregate<Aggregate<std::int32_t, AggregateKind::argmax>>);
static_assert(!window::AtomicAggregate<Aggregate<double, AggregateKind::first>>);
static_assert(window::InvertibleAggregate<Aggregate<std::int64_t, AggregateKind::sum>>);
static_assert(!window::InvertibleAggregate<Aggregate<float, AggregateKind::min>>);
template <class A>
concept PrefixInstantiable = requires(typename A::Acc a) {
  A::uncombine(a, a);
};
static_assert(!PrefixInstantiable<Aggregate<std::int32_t, AggregateKind::last>>);

TEST(CountWindowSelector, RefusesAnAlgorithmWithoutTheTraitItNeeds) {
  const auto h100 = window::reference_h100_profile();
  const window::CountWindowProblem p{1 << 20, {64, 4}, ValueType::int32, AggregateKind::argmax};
  // argmax has neither a device atomic nor an inverse: BLOCK-SCAN alone needs neither.
  for (const auto& [a, r] : window::plan_all(p, h100))
    EXPECT_EQ(r.plan.has_value(), a == CountAlgorithm::block_scan)
        << window::to_string(a) << ": " << r.reason;
  try {
    window::select_count_window(CountAlgorithm::coop, p, h100);
    FAIL() << "coop accepted argmax";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("coop"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("argmax"), std::string::npos) << e.what();
  }
  EXPECT_EQ(window::select_count_window(CountAlgorithm::automatic, p, h100).algorithm,
            CountAlgorithm::block_scan);
  // Where the others can run, they are cheaper: the selector keeps them.
  const window::CountWindowProblem sum{1 << 20, {64, 4}, ValueType::int32, AggregateKind::sum};
  EXPECT_NE(window::select_count_window(CountAlgorithm::automatic, sum, h100).algorithm,
            CountAlgorithm::block_scan);
}

TEST(CountWindowApi, PositionalFunctionsReportPositions) {
  const std::vector<std::int32_t> v = {3, 1, 4, 1, 5, 9, 2, 6};
  const auto run = [&](AggregateKind k) {
    return window::aggregate_count(std::span<const std::int32_t>(v), 4, 2, k);
  };
  const auto amin = run(AggregateKind::argmin);  // windows [0,4) [2,6) [4,8)
  EXPECT_EQ(values_of<std::int32_t>(amin.values), (std::vector<std::int32_t>{1, 1, 2}));
  EXPECT_EQ(amin.positions, (std::vector<std::int64_t>{1, 3, 6}));  // the first of equal values
  const auto amax = run(AggregateKind::argmax);
  EXPECT_EQ(amax.positions, (std::vector<std::int64_t>{2, 5, 5}));
  EXPECT_EQ(run(AggregateKind::first).positions, (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(values_of<std::int32_t>(run(AggregateKind::last).values), (std::vector<std::int32_t>{1, 9, 6}));
  EXPECT_TRUE(run(AggregateKind::sum).positions.empty());
}
}  // namespace
}  // namespace sextant::testing
