// Every registered CPU cuboid variant (cpu/skycube/cuboid_variants.hpp) through the same bodies:
// the cuboid conformance body against brute force (testing/cuboid_conformance.hpp) and
// STSC / SDSC built from the variant against the reference skycube. A variant this CPU cannot
// run (or SEXTANT_SIMD rules out) is skipped, naming why; ctest also runs this binary under
// SEXTANT_SIMD=avx2, where the AVX-512 variants must refuse to run.
#include "cpu/skycube/cuboid_variants.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "cpu/omp_team.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "templates/skycube/sdsc.hpp"
#include "templates/skycube/stsc.hpp"
#include "testing/cuboid_conformance.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant {
namespace {

template <class Tuple>
struct AsTypes;
template <class... Hooks>
struct AsTypes<std::tuple<Hooks...>> {
  using type = ::testing::Types<Hooks...>;
};

template <class Hook>
bool skip_unless_runnable() {
  if (Hook::can_run()) return false;
  std::cout << "[          ] " << Hook::name
            << ": not runnable here (SIMD level allowed: " << to_string(simd_level()) << ")\n";
  return true;
}
#define SKIP_UNLESS_RUNNABLE(Hook)                                                                    \
  if (skip_unless_runnable<Hook>())                                                                   \
  GTEST_SKIP() << Hook::name << " needs an instruction set this CPU lacks or SEXTANT_SIMD rules out " \
               << "(allowed: " << to_string(simd_level()) << ")"

// Large anticorrelated and independent data: long code scans (the vector main loops), many
// tiles and, for the parallel hooks, the cross phase.
std::vector<Dataset> large_datasets() {
  using datagen::Distribution;
  std::vector<Dataset> out;
  out.push_back(testing::generate_dataset(Distribution::anticorrelated, 4500, 8, 21));
  out.push_back(testing::generate_dataset(Distribution::independent, 4500, 12, 22));
  out.push_back(testing::generate_dataset(Distribution::anticorrelated, 4200, 16, 23));
  out.push_back(testing::generate_dataset(Distribution::ties, 6000, 5, 11, 3));
  return out;
}

template <class Hook>
class SequentialCuboidVariant : public ::testing::Test {};
TYPED_TEST_SUITE(SequentialCuboidVariant, AsTypes<cpu::SequentialCuboidCpuVariants>::type);

template <class Hook>
class ParallelCuboidVariant : public ::testing::Test {};
TYPED_TEST_SUITE(ParallelCuboidVariant, AsTypes<cpu::ParallelCuboidCpuVariants>::type);

TYPED_TEST(SequentialCuboidVariant, MatchesBruteForce) {
  SKIP_UNLESS_RUNNABLE(TypeParam);
  TypeParam hook;
  testing::check_cuboid_hook(hook, testing::tie_heavy_datasets());
}

TYPED_TEST(SequentialCuboidVariant, MatchesBruteForceOnLargeData) {
  SKIP_UNLESS_RUNNABLE(TypeParam);
  TypeParam hook;
  testing::check_cuboid_hook(hook, large_datasets(), 2);
}

TYPED_TEST(SequentialCuboidVariant, StscConformance) {
  SKIP_UNLESS_RUNNABLE(TypeParam);
  const testing::SkycubeRunner runner{
      "stsc " + std::string(TypeParam::name), [](const Dataset& data, int max_level, int threads) {
        cpu::ExtendedSkylineCpu extended{threads};
        std::vector<TypeParam> hooks(static_cast<std::size_t>(threads));
        cpu::OmpTeam team(threads);
        return skycube::stsc(data, max_level, extended, std::span<TypeParam>(hooks), team).cube;
      }};
  testing::run_conformance(runner, {2});
}

TYPED_TEST(ParallelCuboidVariant, MatchesBruteForce) {
  SKIP_UNLESS_RUNNABLE(TypeParam);
  std::vector<Dataset> datasets = testing::tie_heavy_datasets();
  for (Dataset& data : large_datasets()) datasets.push_back(std::move(data));
  for (int threads : {2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    TypeParam hook{threads};
    testing::check_cuboid_hook(hook, datasets, 2);
  }
}

TYPED_TEST(ParallelCuboidVariant, SdscConformance) {
  SKIP_UNLESS_RUNNABLE(TypeParam);
  const testing::SkycubeRunner runner{
      "sdsc " + std::string(TypeParam::name), [](const Dataset& data, int max_level, int threads) {
        cpu::ExtendedSkylineCpu extended{threads};
        std::vector<TypeParam> devices{TypeParam{threads}};
        sextant::SerialTeam device_team;
        cpu::OmpTeam host_team(threads);
        return skycube::sdsc(data, max_level, extended, std::span<TypeParam>(devices), device_team, host_team)
            .cube;
      }};
  testing::run_conformance(runner, {2});
}

// A variant run where it is not allowed fails with Error (unsupported, exit code 4), not with an
// illegal instruction.
TYPED_TEST(SequentialCuboidVariant, RefusesToRunWhereNotAllowed) {
  if (TypeParam::can_run()) GTEST_SKIP() << TypeParam::name << " is allowed here";
  const Dataset data = testing::generate_dataset(datagen::Distribution::independent, 50, 3, 1);
  const std::vector<PointId> ids = testing::all_ids(data);
  TypeParam hook;
  skycube::CuboidOutput out;
  try {
    hook.compute(skycube::CuboidInput{data, ids, 7}, out);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_EQ(exit_code(e.kind()), 4);
    EXPECT_NE(std::string(e.what()).find(TypeParam::name), std::string::npos) << e.what();
  }
}

TEST(CuboidVariants, NamesCarryTheirInstructionSet) {
  EXPECT_EQ(cpu::SequentialCuboidCpuOn<cpu::ScalarIsa>::name, "cpu-hybrid-cuboid-scalar");
  EXPECT_EQ(cpu::SequentialCuboidCpuOn<cpu::Avx2Isa>::name, "cpu-hybrid-cuboid-avx2");
  EXPECT_EQ(cpu::ParallelCuboidCpuOn<cpu::Avx512Isa>::name, "cpu-hybrid-cuboid-parallel-avx512");
  EXPECT_TRUE(cpu::SequentialCuboidCpuOn<cpu::ScalarIsa>::fallback);
  EXPECT_FALSE(cpu::ParallelCuboidCpuOn<cpu::Avx2Isa>::fallback);
  // Unset, SEXTANT_SIMD lets every level the CPU has run; set, it forces its level alone.
  const bool forced = std::getenv("SEXTANT_SIMD") != nullptr;
  const SimdLevel level = simd_level();
  EXPECT_EQ(cpu::SequentialCuboidCpuOn<cpu::Avx512Isa>::can_run(), level == SimdLevel::avx512);
  EXPECT_EQ(cpu::ParallelCuboidCpuOn<cpu::Avx2Isa>::can_run(),
            forced ? level == SimdLevel::avx2 : level != SimdLevel::scalar);
  EXPECT_EQ(cpu::ParallelCuboidCpuOn<cpu::ScalarIsa>::can_run(), !forced || level == SimdLevel::scalar);
}

}  // namespace
}  // namespace sextant
