// MDMC on the GPU (gpu/skycube): the shared conformance sweep, the NBA data, wide cubes and the
// global-memory bitmap fallback, all compared id for id with the CPU reference (or, where the
// reference is too slow, with the tested CPU MDMC). Tests named *Small* are sized for
// compute-sanitizer (memcheck, racecheck, synccheck): --gtest_filter='*Small*'.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_skycube_cpu.hpp"
#include "cpu/skycube/reference_skycube.hpp"
#include "datagen/skyline_generator.hpp"
#include "gpu_test_support.hpp"
#include "support/random_data.hpp"
#include "support/skycube_conformance.hpp"
#include "templates/skycube/mdmc.hpp"
#include "templates/skycube/quad_tree.hpp"
#include "templates/skycube/skycube_options.hpp"
#include "templates/skycube/task_team.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/skycube/extended_skyline_gpu.hpp"
#include "gpu/skycube/mdmc_gpu.hpp"
#include "gpu/skycube/mdmc_skycube_gpu.hpp"
#endif

namespace sextant::skycube {
namespace {

#if SEXTANT_HAS_CUDA
HashCube run_gpu(const Dataset& data, int max_level, const MdmcGpuOptions& gpu_options = {}) {
  SkycubeOptions options;
  options.kind = TemplateKind::mdmc;
  options.max_level = max_level;
  options.threads = 2;  // the CPU extended skyline
  return mdmc_gpu(data, options, gpu_options).cube;
}

testing::SkycubeRunner gpu_runner(const std::string& name, const MdmcGpuOptions& gpu_options) {
  return {name, [gpu_options](const Dataset& data, int max_level, int) {
            return run_gpu(data, max_level, gpu_options);
          }};
}

MdmcGpuOptions global_bitmaps(std::size_t batch_points = 0) {
  MdmcGpuOptions o;
  o.force_global_bitmaps = true;
  o.batch_points = batch_points;
  return o;
}

HashCube run_cpu(const Dataset& data, int max_level) {
  SkycubeOptions options;
  options.max_level = max_level;
  options.threads = 2;
  return mdmc_cpu(data, options).cube;
}
#endif

TEST(SkycubeGpu, Conformance) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  testing::run_conformance(gpu_runner("mdmc-gpu", {}), {1});
#endif
}

TEST(SkycubeGpu, ConformanceGlobalBitmaps) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  testing::run_conformance(gpu_runner("mdmc-gpu global bitmaps", global_bitmaps()), {1});
#endif
}

// Tiny batches: many launches through both staging buffers.
TEST(SkycubeGpu, ConformanceTinyBatches) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  MdmcGpuOptions o;
  o.batch_points = 7;
  testing::run_conformance(gpu_runner("mdmc-gpu batch=7", o), {1});
#endif
}

TEST(SkycubeGpu, Nba) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  testing::run_nba(gpu_runner("mdmc-gpu", {}), 1);
#endif
}

TEST(SkycubeGpu, HeavyTiesAllLevels) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  for (int d : {3, 6, 7}) {
    const Dataset data = testing::random_dataset(700, d, 3, 40 + static_cast<std::uint64_t>(d), 25);
    for (int max_level = 1; max_level <= d; ++max_level) {
      SCOPED_TRACE("d=" + std::to_string(d) + " max_level=" + std::to_string(max_level));
      testing::expect_same_skycube(run_gpu(data, max_level), reference_skycube(data, max_level));
    }
  }
#endif
}

// d = 16: 2^16-bit bitmaps (16 KiB of shared memory per block), and the same in global memory.
TEST(SkycubeGpu, Dimension16) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const Dataset small = testing::random_dataset(40, 16, 0, 106);
  testing::expect_same_skycube(run_gpu(small, 16), reference_skycube(small));
  testing::expect_same_skycube(run_gpu(small, 5), reference_skycube(small, 5));
  testing::expect_same_skycube(run_gpu(small, 16, global_bitmaps()), reference_skycube(small));
  const Dataset ties = testing::random_dataset(120, 13, 3, 103);
  testing::expect_same_skycube(run_gpu(ties, 13), reference_skycube(ties));
  // Larger: against the CPU MDMC (itself checked against the reference in mdmc_tests).
  const Dataset larger = testing::random_dataset(3000, 16, 0, 116, 5);
  testing::expect_same_skycube(run_gpu(larger, 16), run_cpu(larger, 16));
  testing::expect_same_skycube(run_gpu(larger, 16, global_bitmaps(100)), run_cpu(larger, 16));
#endif
}

// d = 20: two 2^20-bit bitmaps (256 KiB) exceed any opt-in shared memory, so the hook must fall
// back to global-memory bitmaps by itself.
TEST(SkycubeGpu, Dimension20FallsBackToGlobalBitmaps) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const Dataset data = testing::random_dataset(60, 20, 4, 120, 10);
  testing::expect_same_skycube(run_gpu(data, 20), run_cpu(data, 20));
  testing::expect_same_skycube(run_gpu(data, 3), run_cpu(data, 3));
#endif
}

// The hook directly: it reports which bitmaps it used.
TEST(SkycubeGpu, HookReportsBitmapPlacement) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const Dataset data = testing::random_dataset(200, 8, 0, 8);
  for (bool forced : {false, true}) {
    MdmcGpuOptions o;
    o.force_global_bitmaps = forced;
    cpu::ExtendedSkylineCpu extended{1};
    const auto skyline = extended.extended_skyline(data);
    const QuadTree tree(data, skyline);
    const MdmcShared shared{tree, 8};
    MdmcGpu hook(o);
    HashCubePart part(8, 8);
    hook.process({shared, 0, tree.size()}, part);
    EXPECT_EQ(hook.used_global_bitmaps(), forced);
    std::vector<HashCubePart> parts;
    parts.push_back(std::move(part));
    testing::expect_same_skycube(HashCube::from_parts(8, data.size(), 8, std::move(parts)),
                                 reference_skycube(data));
  }
#endif
}

TEST(SkycubeGpu, RejectsBadArguments) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const Dataset data = testing::random_dataset(10, 3, 0, 1);
  EXPECT_THROW(mdmc_gpu(data, {}, testing::gpu_count()), Error);
  EXPECT_THROW(mdmc_gpu(data, {}, -1), Error);
  SkycubeOptions bad;
  bad.max_level = 4;
  EXPECT_THROW(mdmc_gpu(data, bad, 0), Error);
  const Dataset empty(0, 3, std::vector<float>{}, {}, "empty");
  EXPECT_EQ(mdmc_gpu(empty, {}, 0).cube.point_count(), 0u);
#endif
}

// The GPU extended skyline equals the CPU one on every conformance workload and on larger data.
TEST(SkycubeGpu, ExtendedSkylineMatchesCpu) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  gpu::ExtendedSkylineGpu gpu_hook{0};
  cpu::ExtendedSkylineCpu cpu_hook{2};
  for (const auto& w : testing::conformance_workloads()) {
    SCOPED_TRACE(w.name);
    ASSERT_EQ(gpu_hook.extended_skyline(w.data), cpu_hook.extended_skyline(w.data));
  }
  for (auto dist : {datagen::Distribution::anticorrelated, datagen::Distribution::independent,
                    datagen::Distribution::correlated}) {
    datagen::GeneratorSpec spec;
    spec.distribution = dist;
    spec.n = 50000;
    spec.d = 8;
    spec.seed = 5;
    const Dataset data = datagen::generate(spec);
    SCOPED_TRACE(datagen::to_string(dist));
    EXPECT_EQ(gpu_hook.extended_skyline(data), cpu_hook.extended_skyline(data));
  }
  const Dataset ties = testing::random_dataset(20000, 5, 6, 77, 30);
  EXPECT_EQ(gpu_hook.extended_skyline(ties), cpu_hook.extended_skyline(ties));
  EXPECT_TRUE(gpu_hook.extended_skyline(Dataset(0, 3, std::vector<float>{})).empty());
#endif
}

// MDMC entirely on the GPU: the template with both GPU hooks.
TEST(SkycubeGpu, ConformanceWithGpuExtendedSkyline) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const testing::SkycubeRunner runner{
      "mdmc gpu+gpu", [](const Dataset& data, int max_level, int) {
        gpu::ExtendedSkylineGpu extended{0};
        SerialTeam team;
        return mdmc(data, max_level, extended, MdmcGpu{}, team, MdmcPolicy{1, 1}).cube;
      }};
  testing::run_conformance(runner, {1});
  testing::run_nba(runner, 1);
#endif
}

// For compute-sanitizer: a few hundred blocks, shared and global bitmaps, ties, several batches.
TEST(SkycubeGpu, SmallSanitizerRun) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  for (int d : {2, 6, 9}) {
    const Dataset data = testing::random_dataset(150, d, 4, 70 + static_cast<std::uint64_t>(d), 20);
    for (const MdmcGpuOptions& o : {MdmcGpuOptions{}, global_bitmaps(16)}) {
      SCOPED_TRACE("d=" + std::to_string(d) + " global=" + std::to_string(o.force_global_bitmaps));
      testing::expect_same_skycube(run_gpu(data, d, o), reference_skycube(data));
    }
    cpu::ExtendedSkylineCpu cpu_hook{1};
    EXPECT_EQ(gpu::ExtendedSkylineGpu{0}.extended_skyline(data), cpu_hook.extended_skyline(data));
  }
#endif
}

}  // namespace
}  // namespace sextant::skycube
