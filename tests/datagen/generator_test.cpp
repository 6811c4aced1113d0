#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "datagen/skyline_generator.hpp"
#include "support/error_of.hpp"

namespace sextant::datagen {
namespace {

using ::testing::HasSubstr;

constexpr Distribution all_distributions[] = {Distribution::independent, Distribution::correlated,
                                              Distribution::anticorrelated, Distribution::ties};

GeneratorSpec spec_of(Distribution distribution, std::size_t n, int d, std::uint64_t seed = 1) {
  GeneratorSpec spec;
  spec.distribution = distribution;
  spec.n = n;
  spec.d = d;
  spec.seed = seed;
  return spec;
}

std::vector<std::uint32_t> bits_of(const Dataset& data) {
  std::vector<std::uint32_t> bits;
  for (const float v : data.values()) bits.push_back(std::bit_cast<std::uint32_t>(v));
  return bits;
}

double pearson(const Dataset& data, int a, int b) {
  const auto n = static_cast<double>(data.size());
  double mean_a = 0, mean_b = 0;
  for (PointId i = 0; i < data.size(); ++i) {
    mean_a += data(i, a);
    mean_b += data(i, b);
  }
  mean_a /= n;
  mean_b /= n;
  double cov = 0, var_a = 0, var_b = 0;
  for (PointId i = 0; i < data.size(); ++i) {
    const double x = data(i, a) - mean_a;
    const double y = data(i, b) - mean_b;
    cov += x * y;
    var_a += x * x;
    var_b += y * y;
  }
  return cov / std::sqrt(var_a * var_b);
}

// The Error thrown by f (failing the test when none is), checked for its kind.
using sextant::testing::error_of;

class GeneratorTest : public ::testing::TestWithParam<Distribution> {};

TEST_P(GeneratorTest, SameSeedSameValuesOtherSeedOtherValues) {
  const Dataset a = generate(spec_of(GetParam(), 3000, 5, 42));
  const Dataset b = generate(spec_of(GetParam(), 3000, 5, 42));
  const Dataset c = generate(spec_of(GetParam(), 3000, 5, 43));
  EXPECT_EQ(bits_of(a), bits_of(b));
  EXPECT_NE(bits_of(a), bits_of(c));
}

TEST_P(GeneratorTest, RowsDoNotDependOnN) {
  // Seeding per block of points: a longer dataset extends a shorter one.
  const Dataset small = generate(spec_of(GetParam(), 5000, 4, 9));
  const Dataset large = generate(spec_of(GetParam(), 12345, 4, 9));
  const auto small_bits = bits_of(small);
  const auto large_bits = bits_of(large);
  ASSERT_EQ(small_bits.size(), 5000u * 4);
  EXPECT_TRUE(std::equal(small_bits.begin(), small_bits.end(), large_bits.begin()));
}

TEST_P(GeneratorTest, ValuesInUnitIntervalForEveryDimensionCount) {
  for (const int d : {1, 2, 3, 8, 16, 32}) {
    const Dataset data = generate(spec_of(GetParam(), 4000, d, 5));
    ASSERT_EQ(data.size(), 4000u);
    ASSERT_EQ(data.dims(), d);
    for (const float v : data.values()) {
      ASSERT_GE(v, 0.0f) << "d=" << d;
      ASSERT_LT(v, 1.0f) << "d=" << d;
      ASSERT_FALSE(std::signbit(v)) << "d=" << d;  // no -0
    }
    for (const Preference p : data.preferences()) EXPECT_EQ(p, Preference::min);
  }
}

TEST_P(GeneratorTest, EmptyDatasetAllowed) {
  const Dataset data = generate(spec_of(GetParam(), 0, 7));
  EXPECT_TRUE(data.empty());
  EXPECT_EQ(data.dims(), 7);
}

INSTANTIATE_TEST_SUITE_P(AllDistributions, GeneratorTest, ::testing::ValuesIn(all_distributions),
                         [](const ::testing::TestParamInfo<Distribution>& p) { return to_string(p.param); });

// Pins the streams: a change here changes every benchmark dataset, so it must be deliberate.
// (These values were also reproduced by an independent Python implementation of the generator.)
TEST(Generator, StreamsArePinned) {
  const std::uint32_t expected[][3] = {
      {0x3e01e17fu, 0x3f6f7f4cu, 0x3e81625cu},  // indep
      {0x3e9fbe9cu, 0x3f0b8efbu, 0x3eea7521u},  // corr
      {0x3f1a2ffau, 0x3e9df216u, 0x3ee47094u},  // anti
      {0x00000000u, 0x3f400000u, 0x3e800000u},  // ties:4
  };
  for (int k = 0; k < 4; ++k) {
    const auto bits = bits_of(generate(spec_of(all_distributions[k], 1, 3, 2024)));
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(bits[j], expected[k][j])
          << to_string(all_distributions[k]) << " column " << j << ": 0x" << std::hex << bits[j];
  }
}

TEST(Generator, CorrelationSigns) {
  const double indep = pearson(generate(spec_of(Distribution::independent, 20000, 2)), 0, 1);
  const double corr = pearson(generate(spec_of(Distribution::correlated, 20000, 2)), 0, 1);
  const double anti = pearson(generate(spec_of(Distribution::anticorrelated, 20000, 2)), 0, 1);
  EXPECT_LT(std::fabs(indep), 0.05);
  EXPECT_GT(corr, 0.5);
  EXPECT_LT(anti, -0.5);

  // Higher d. The original correlated generator passes each offset on to the next dimension,
  // which weakens the correlation of neighbouring columns as d grows (about 0 at d = 16).
  const Dataset corr8 = generate(spec_of(Distribution::correlated, 20000, 8));
  EXPECT_GT(pearson(corr8, 0, 1), 0.15);
  EXPECT_GT(pearson(corr8, 0, 2), 0.4);
  const Dataset anti8 = generate(spec_of(Distribution::anticorrelated, 20000, 8));
  EXPECT_LT(pearson(anti8, 0, 1), -0.25);
  EXPECT_LT(pearson(anti8, 0, 2), -0.08);
  EXPECT_LT(std::fabs(pearson(generate(spec_of(Distribution::independent, 20000, 8)), 0, 1)), 0.05);
}

TEST(Generator, AnticorrelatedPointsLieNearOnePlane) {
  // sum(x) = d * v with v ~ 0.5 (sd ~0.04): the sums scatter far less than for independent data.
  const int d = 6;
  const Dataset data = generate(spec_of(Distribution::anticorrelated, 20000, d));
  double sum = 0, sum_sq = 0;
  for (PointId i = 0; i < data.size(); ++i) {
    double s = 0;
    for (int j = 0; j < d; ++j) s += data(i, j);
    s /= d;
    sum += s;
    sum_sq += s * s;
  }
  const double mean = sum / static_cast<double>(data.size());
  const double sd = std::sqrt(sum_sq / static_cast<double>(data.size()) - mean * mean);
  EXPECT_NEAR(mean, 0.5, 0.01);
  EXPECT_LT(sd, 0.06);
}

TEST(Generator, TiesHaveExactlyQDistinctValuesPerColumnAndDuplicateRows) {
  for (const int q : {2, 4, 7}) {
    GeneratorSpec spec = spec_of(Distribution::ties, 10000, 3, 11);
    spec.levels = q;
    const Dataset data = generate(spec);
    std::set<std::vector<float>> rows;
    for (int j = 0; j < 3; ++j) {
      std::set<float> distinct;
      for (PointId i = 0; i < data.size(); ++i) distinct.insert(data(i, j));
      EXPECT_EQ(distinct.size(), static_cast<std::size_t>(q)) << "q=" << q << " column " << j;
      for (const float v : distinct) {
        const double k = static_cast<double>(v) * q;
        EXPECT_NEAR(k, std::round(k), 1e-5) << v << " is not a multiple of 1/" << q;
      }
      EXPECT_EQ(*distinct.begin(), 0.0f);
    }
    for (PointId i = 0; i < data.size(); ++i) rows.insert(std::vector<float>(data.row(i), data.row(i) + 3));
    EXPECT_EQ(rows.size(), static_cast<std::size_t>(q * q * q))
        << "q=" << q;  // every combination, many copies
  }
  EXPECT_THAT(generate([] {
                GeneratorSpec spec = spec_of(Distribution::ties, 1, 1);
                spec.levels = 3;
                return spec;
              }())
                  .origin(),
              HasSubstr("ties:3"));
}

TEST(Generator, OriginDescribesTheSpec) {
  EXPECT_EQ(generate(spec_of(Distribution::anticorrelated, 100, 8, 1)).origin(),
            "generated anti n=100 d=8 seed=1");
  EXPECT_EQ(generate(spec_of(Distribution::correlated, 5, 2, 77)).origin(), "generated corr n=5 d=2 seed=77");
}

TEST(Generator, RejectsBadSpecs) {
  EXPECT_THAT(error_of([] { generate(spec_of(Distribution::independent, 10, 0)); }, ErrorKind::bad_argument),
              HasSubstr("1..32"));
  EXPECT_THAT(
      error_of([] { generate(spec_of(Distribution::anticorrelated, 10, 33)); }, ErrorKind::bad_argument),
      HasSubstr("d = '33'"));
  GeneratorSpec ties = spec_of(Distribution::ties, 10, 2);
  ties.levels = 1;
  EXPECT_THAT(error_of([&] { generate(ties); }, ErrorKind::bad_argument), HasSubstr("levels = '1'"));
  ties.levels = max_tie_levels + 1;
  EXPECT_THAT(error_of([&] { generate(ties); }, ErrorKind::bad_argument), HasSubstr("2..16777216"));
  EXPECT_THAT(error_of([] { generate(spec_of(Distribution::independent, std::size_t{1} << 33, 2)); },
                       ErrorKind::bad_argument),
              HasSubstr("n = '8589934592'"));
  // levels matter only for ties
  GeneratorSpec indep = spec_of(Distribution::independent, 3, 2);
  indep.levels = 0;
  EXPECT_EQ(generate(indep).size(), 3u);
}

TEST(ParseDistribution, AcceptsShortAndLongNames) {
  EXPECT_EQ(parse_distribution("--dist", "indep").distribution, Distribution::independent);
  EXPECT_EQ(parse_distribution("--dist", "independent").distribution, Distribution::independent);
  EXPECT_EQ(parse_distribution("--dist", "corr").distribution, Distribution::correlated);
  EXPECT_EQ(parse_distribution("--dist", "correlated").distribution, Distribution::correlated);
  EXPECT_EQ(parse_distribution("--dist", "anti").distribution, Distribution::anticorrelated);
  EXPECT_EQ(parse_distribution("--dist", "anticorrelated").distribution, Distribution::anticorrelated);
  const GeneratorSpec ties = parse_distribution("--dist", "ties");
  EXPECT_EQ(ties.distribution, Distribution::ties);
  EXPECT_EQ(ties.levels, 4);
  const GeneratorSpec ties7 = parse_distribution("--dist", "ties:7");
  EXPECT_EQ(ties7.distribution, Distribution::ties);
  EXPECT_EQ(ties7.levels, 7);
  EXPECT_EQ(parse_distribution("--dist", "ties:16777216").levels, 16777216);
  for (const Distribution d : all_distributions)
    EXPECT_EQ(parse_distribution("x", to_string(d)).distribution, d);
}

TEST(ParseDistribution, RejectsBadInput) {
  for (const char* bad : {"", "foo", "Anti", "indep ", "ties:", "ties:1", "ties:0", "ties:-3", "ties:x",
                          "ties:4:5", "ties:16777217", "anti:3", "corr:"}) {
    const std::string message = error_of([&] { parse_distribution("--dist", bad); }, ErrorKind::bad_argument);
    EXPECT_THAT(message, HasSubstr("--dist = '" + std::string(bad) + "'")) << bad;
    EXPECT_THAT(message, HasSubstr("indep, corr, anti, ties")) << bad;
  }
}

TEST(ParseGenerateSpec, ParsesEveryForm) {
  GeneratorSpec s = parse_generate_spec("--generate", "anti:100000:8:7");
  EXPECT_EQ(s.distribution, Distribution::anticorrelated);
  EXPECT_EQ(s.n, 100000u);
  EXPECT_EQ(s.d, 8);
  EXPECT_EQ(s.seed, 7u);

  s = parse_generate_spec("--generate", "corr:10:3");
  EXPECT_EQ(s.distribution, Distribution::correlated);
  EXPECT_EQ(s.n, 10u);
  EXPECT_EQ(s.d, 3);
  EXPECT_EQ(s.seed, 1u);

  s = parse_generate_spec("--generate", "indep:0:32:18446744073709551615");
  EXPECT_EQ(s.n, 0u);
  EXPECT_EQ(s.d, 32);
  EXPECT_EQ(s.seed, 18446744073709551615u);

  s = parse_generate_spec("--generate", "ties:100:4");  // default levels
  EXPECT_EQ(s.distribution, Distribution::ties);
  EXPECT_EQ(s.levels, 4);
  EXPECT_EQ(s.n, 100u);
  EXPECT_EQ(s.d, 4);

  s = parse_generate_spec("--generate", "ties:5:100:4");
  EXPECT_EQ(s.levels, 5);
  EXPECT_EQ(s.n, 100u);
  EXPECT_EQ(s.d, 4);
  EXPECT_EQ(s.seed, 1u);

  s = parse_generate_spec("--generate", "ties:3:200:6:99");
  EXPECT_EQ(s.levels, 3);
  EXPECT_EQ(s.n, 200u);
  EXPECT_EQ(s.d, 6);
  EXPECT_EQ(s.seed, 99u);
}

TEST(ParseGenerateSpec, RejectsBadInput) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"", "wrong number"},
      {"anti", "wrong number"},
      {"anti:100", "wrong number"},
      {"anti:1:2:3:4", "wrong number"},
      {"ties:2:1:2:3:4", "wrong number"},
      {"foo:10:2", "unknown distribution 'foo'"},
      {"anti:x:8", "N 'x'"},
      {"anti:-5:8", "N '-5'"},
      {"anti::8", "N ''"},
      {"anti:4294967295:8", "N '4294967295'"},
      {"anti:10:0", "D '0'"},
      {"anti:10:33", "D '33'"},
      {"anti:10:8.5", "D '8.5'"},
      {"anti:10:8:", "SEED ''"},
      {"anti:10:8:-1", "SEED '-1'"},
      {"anti:10:8:18446744073709551616", "SEED '18446744073709551616'"},
      {"ties:1:10:8", "tie levels '1'"},
      {"ties:q:10:8", "tie levels 'q'"},
  };
  for (const auto& c : cases) {
    const std::string message =
        error_of([&] { parse_generate_spec("--generate", c.text); }, ErrorKind::bad_argument);
    EXPECT_THAT(message, HasSubstr("--generate = '" + std::string(c.text) + "'")) << c.text;
    EXPECT_THAT(message, HasSubstr(c.says)) << c.text;
    EXPECT_THAT(message, HasSubstr("DIST:N:D[:SEED]")) << c.text;
  }
}

}  // namespace
}  // namespace sextant::datagen
