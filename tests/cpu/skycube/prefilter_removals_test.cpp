// CuboidKernels::prefilter_removals for every instruction set this CPU allows, against the rule
// written from the definition (filter point q removes sample point p when q dominates p: <= on every
// column and < on one; strictly: < on every column), on values with many ties, with the NaN padding
// past the sample and with 1 to 9 columns. A wrong matrix would only pick worse filter points, never
// a wrong skyline, so the cuboid conformance tests cannot see it: this test does.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cpu/simd/isa.hpp"
#include "cpu/skycube/cuboid_state.hpp"

namespace sextant {
namespace {

template <class Isa>
void expect_removals_by_definition(const char* isa) {
  if (!cpu::allowed<Isa>()) GTEST_SKIP() << isa << " is not allowed on this CPU";
  const cpu::detail::CuboidKernels kernels = cpu::detail::cuboid_kernels<Isa>();
  std::mt19937_64 rng(7);
  for (const std::size_t columns : {1u, 2u, 4u, 7u, 9u})
    for (const std::size_t s : {1u, 63u, 64u, 130u}) {
      const std::size_t pool = 1 + rng() % 20;
      const std::size_t padded = (s + 63) / 64 * 64;
      std::uniform_int_distribution<int> level(0, 3);  // four levels: many ties and equal points
      std::vector<float> sample(columns * padded, std::numeric_limits<float>::quiet_NaN());
      std::vector<float> filters(columns * pool);
      for (std::size_t c = 0; c < columns; ++c) {
        for (std::size_t i = 0; i < s; ++i) sample[c * padded + i] = static_cast<float>(level(rng));
        for (std::size_t k = 0; k < pool; ++k) filters[c * pool + k] = static_cast<float>(level(rng));
      }
      for (const bool strict : {false, true}) {
        std::vector<std::uint64_t> removed(pool * padded / 64, ~std::uint64_t{0});
        kernels.prefilter_removals(sample.data(), padded, filters.data(), pool, columns, strict,
                                   removed.data());
        for (std::size_t k = 0; k < pool; ++k)
          for (std::size_t i = 0; i < padded; ++i) {
            bool le = i < s, lt_some = false, lt_all = i < s;
            for (std::size_t c = 0; c < columns && i < s; ++c) {
              const float q = filters[c * pool + k], p = sample[c * padded + i];
              le = le && q <= p;
              lt_some = lt_some || q < p;
              lt_all = lt_all && q < p;
            }
            const bool want = strict ? lt_all : le && lt_some;
            const bool got = (removed[k * padded / 64 + i / 64] >> (i % 64) & 1u) != 0;
            ASSERT_EQ(got, want) << isa << ": columns " << columns << ", sample " << s << ", filter " << k
                                 << ", point " << i << (strict ? ", strict" : "");
          }
      }
    }
}

TEST(PrefilterRemovals, ScalarFollowsTheDefinition) {
  expect_removals_by_definition<cpu::ScalarIsa>("scalar");
}
TEST(PrefilterRemovals, Avx2FollowsTheDefinition) {
  expect_removals_by_definition<cpu::Avx2Isa>("avx2");
}
TEST(PrefilterRemovals, Avx512FollowsTheDefinition) {
  expect_removals_by_definition<cpu::Avx512Isa>("avx512");
}

}  // namespace
}  // namespace sextant
