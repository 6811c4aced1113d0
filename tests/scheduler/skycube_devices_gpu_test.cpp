// The skycube templates on GPUs through the scheduler (api: DeviceOptions): GPU-only and mixed
// CPU + GPU runs give the reference cube, a GPU retired mid-run hands its work to the CPUs, and
// several GPUs share the work. Skips cleanly without CUDA or without a GPU (label gpu; the
// two-GPU tests are named *MultiGpu* for `ctest -R MultiGpu`).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "api/skycube.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "cpu/skycube/reference_skycube.hpp"
#include "datagen/skyline_generator.hpp"
#include "gpu/gpu_test_support.hpp"
#include "scheduler/statistics.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant::skycube {
namespace {

SkycubeResult run(const Dataset& data, TemplateKind kind, int max_level, int threads,
                  const std::string& devices, const std::string& faults = "", int gpu_cores = 0) {
  SkycubeOptions options;
  options.kind = kind;
  options.max_level = max_level;
  options.threads = threads;
  DeviceOptions on;
  on.devices = parse_devices("devices", devices);
  if (!faults.empty()) on.faults = scheduler::FaultInjection::parse("faults", faults);
  on.gpu_cores = gpu_cores;
  return compute_skycube(data, options, on);
}

Dataset anticorrelated(std::size_t n, int d, std::uint64_t seed) {
  datagen::GeneratorSpec spec;
  spec.distribution = datagen::Distribution::anticorrelated;
  spec.n = n;
  spec.d = d;
  spec.seed = seed;
  return datagen::generate(spec);
}

std::size_t items_on(const scheduler::Statistics& s, DeviceId device) {
  for (const auto& d : s.devices())
    if (d.device == device) return d.items;
  return 0;
}

constexpr DeviceId gpu0{DeviceKind::gpu, 0};
constexpr DeviceId gpu1{DeviceKind::gpu, 1};

class GpuMixes : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuMixes, MdmcGivesTheReferenceCube) {
  SEXTANT_REQUIRE_GPUS(1);
  const std::string devices = GetParam();
  const testing::SkycubeRunner runner{
      "mdmc on " + devices, [&](const Dataset& data, int max_level, int threads) {
        SkycubeResult r = run(data, TemplateKind::mdmc, max_level, threads, devices);
        EXPECT_TRUE(r.statistics != nullptr);
        return r.cube;
      }};
  testing::run_conformance(runner, {1, 0});
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuMixes, ::testing::Values("gpu0", "cpu,gpu0", "numa0,gpu0", "all"),
                         [](const auto& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (c == ',') c = '_';
                           return name;
                         });

TEST(SkycubeOnGpus, CpuAndGpuBothTakeWorkOnALargeRun) {
  SEXTANT_REQUIRE_GPUS(1);
  const Dataset data = anticorrelated(20000, 8, 21);
  const SkycubeResult r = run(data, TemplateKind::mdmc, 8, 2, "cpu,gpu0");
  testing::expect_same_skycube(r.cube, reference_skycube(data, 8));
  ASSERT_TRUE(r.statistics);
  EXPECT_GT(items_on(*r.statistics, gpu0), 0u) << scheduler::report(*r.statistics);
  EXPECT_EQ(r.statistics->total_items(), r.extended_skyline_size);
}

TEST(SkycubeOnGpus, GpuRetiredMidRunHandsItsWorkToTheCpus) {
  SEXTANT_REQUIRE_GPUS(1);
  const Dataset data = anticorrelated(20000, 8, 22);
  // Two CPU workers and the GPU: the GPU's own third of S+ takes it two chunks at least, and its
  // second fails after the first has put points into its HashCube part.
  const SkycubeResult r = run(data, TemplateKind::mdmc, 8, 2, "cpu,gpu0", "gpu0@2");
  testing::expect_same_skycube(r.cube, reference_skycube(data, 8));
  ASSERT_TRUE(r.statistics);
  ASSERT_EQ(r.statistics->failures.size(), 1u) << scheduler::report(*r.statistics);
  EXPECT_EQ(r.statistics->failures[0].device, gpu0);
  const auto devices = r.statistics->devices();
  const auto gpu =
      std::find_if(devices.begin(), devices.end(), [](const auto& d) { return d.device == gpu0; });
  ASSERT_NE(gpu, devices.end());
  EXPECT_EQ(gpu->retired_workers, 1);
  EXPECT_NE(scheduler::report(*r.statistics).find("injected fault"), std::string::npos);
}

TEST(SkycubeOnGpus, GpuFailingAtOnceLeavesTheWholeRunToTheCpus) {
  SEXTANT_REQUIRE_GPUS(1);
  const Dataset data = anticorrelated(5000, 7, 23);
  // Two CPU workers and gpu0, which fails its first chunk. With "all", a host of four GPUs and 64
  // cores could take the whole of this small S+ before gpu0's first chunk (seen on h200-x4).
  const SkycubeResult r = run(data, TemplateKind::mdmc, 7, 2, "cpu,gpu0", "gpu0@1");
  testing::expect_same_skycube(r.cube, reference_skycube(data, 7));
  ASSERT_TRUE(r.statistics);
  EXPECT_FALSE(r.statistics->failures.empty());
}

TEST(SkycubeOnGpus, GpuOnlyRunWithTheGpuFailingIsAClearError) {
  SEXTANT_REQUIRE_GPUS(1);
  try {
    run(anticorrelated(5000, 6, 24), TemplateKind::mdmc, 6, 0, "gpu0", "gpu0@1");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource);
    EXPECT_NE(std::string(e.what()).find("gpu0"), std::string::npos) << e.what();
  }
}

TEST(SkycubeOnGpus, LatticeTemplatesOnGpusGiveTheReferenceOrAClearError) {
  SEXTANT_REQUIRE_GPUS(1);
  const Dataset data = anticorrelated(2000, 6, 25);
  const HashCube expected = reference_skycube(data, 6);
  // STSC is CPU-only: a named GPU is refused, "all" runs on the CPU cores.
  EXPECT_THROW(run(data, TemplateKind::stsc, 6, 0, "gpu0"), Error);
  testing::expect_same_skycube(run(data, TemplateKind::stsc, 6, 0, "all").cube, expected);
  // SDSC uses a GPU where a GPU cuboid hook exists (else the GPUs sit out).
  testing::expect_same_skycube(run(data, TemplateKind::sdsc, 6, 0, "all").cube, expected);
  testing::expect_same_skycube(run(data, TemplateKind::sdsc, 6, 0, "cpu,gpu0").cube, expected);
}

// MDMC's GPU host worker inserts with as many threads as it owns cores: any count (one word line
// each or several, with CPU workers beside it or not) gives the reference cube, here at d = 12
// (8 cache lines of words per point), against the CPU's cube (the conformance tests hold that one
// to the reference; the brute-force reference is too slow at d = 12).
TEST(SkycubeOnGpus, MdmcInsertionCoresGiveTheCpuCube) {
  SEXTANT_REQUIRE_GPUS(1);
  const Dataset data = anticorrelated(3000, 12, 31);
  const HashCube expected = run(data, TemplateKind::mdmc, 12, 0, "cpu").cube;
  for (int cores : {1, 3, 8})
    for (const char* devices : {"gpu0", "all"}) {
      SCOPED_TRACE(std::string(devices) + " with " + std::to_string(cores) + " cores per GPU");
      testing::expect_same_skycube(run(data, TemplateKind::mdmc, 12, 0, devices, "", cores).cube, expected);
    }
}

TEST(SkycubeOnGpus, MultiGpuRunsShareTheWork) {
  SEXTANT_REQUIRE_GPUS(2);
  const Dataset data = anticorrelated(30000, 8, 26);
  const HashCube expected = reference_skycube(data, 8);
  const SkycubeResult two = run(data, TemplateKind::mdmc, 8, 0, "gpu0,gpu1");
  testing::expect_same_skycube(two.cube, expected);
  ASSERT_TRUE(two.statistics);
  EXPECT_GT(items_on(*two.statistics, gpu0), 0u) << scheduler::report(*two.statistics);
  EXPECT_GT(items_on(*two.statistics, gpu1), 0u) << scheduler::report(*two.statistics);
  testing::expect_same_skycube(run(data, TemplateKind::mdmc, 8, 0, "all").cube, expected);
  // One of the two failing mid-run.
  const SkycubeResult faulty = run(data, TemplateKind::mdmc, 8, 0, "gpu0,gpu1", "gpu1@2");
  testing::expect_same_skycube(faulty.cube, expected);
}

TEST(SkycubeOnGpus, MultiGpuConformance) {
  SEXTANT_REQUIRE_GPUS(2);
  const testing::SkycubeRunner runner{
      "mdmc on gpu0,gpu1", [](const Dataset& data, int max_level, int threads) {
        return run(data, TemplateKind::mdmc, max_level, threads, "gpu0,gpu1").cube;
      }};
  testing::run_conformance(runner, {0});
}

}  // namespace
}  // namespace sextant::skycube
