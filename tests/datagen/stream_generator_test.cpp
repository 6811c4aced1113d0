// The stream generator: determinism (pinned), key distributions, delays, the bounded-delay
// watermark policy, projection into batches and the CSV it writes.
#include "datagen/stream_generator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "datagen/portable_math.hpp"
#include "datagen/stream_csv.hpp"

namespace sextant::datagen {
namespace {

using ::testing::HasSubstr;

StreamGeneratorSpec spec_of(std::uint64_t n, std::uint32_t keys = 1, double delay = 0,
                            DelayDistribution dist = DelayDistribution::uniform) {
  StreamGeneratorSpec spec;
  spec.n = n;
  spec.keys = keys;
  spec.delay = delay;
  spec.delay_distribution = dist;
  return spec;
}

std::uint64_t fnv1a(const std::vector<StreamTuple>& tuples) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(tuples.data());
  for (std::size_t i = 0; i < tuples.size() * sizeof(StreamTuple); ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

std::int64_t arrival(std::uint64_t i, double rate) {
  return static_cast<std::int64_t>(std::floor(static_cast<double>(i) / rate));
}

TEST(PortableMath, MatchesLibmClosely) {
  for (double x : {1e-300, 1e-10, 0.3, 0.5, 0.7071, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300}) {
    EXPECT_NEAR(detail::portable_log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  for (double x : {-700.0, -20.0, -1.0, -1e-9, 0.0, 0.25, 1.0, 3.5, 20.0, 700.0})
    EXPECT_NEAR(detail::portable_exp(x) / std::exp(x), 1.0, 4e-16) << x;
}

TEST(StreamGenerator, TupleIsThePapersThirtyTwoBytes) {
  EXPECT_EQ(sizeof(StreamTuple), 32u);
  EXPECT_EQ(offsetof(StreamTuple, timestamp), 24u);
}

TEST(StreamGenerator, DeterministicPinnedAndIndependentOfBlocking) {
  StreamGeneratorSpec spec = spec_of(100000, 1000, 25, DelayDistribution::exponential);
  spec.zipf = 0.9;
  spec.rate = 3;
  spec.seed = 42;
  const std::vector<StreamTuple> a = generate_stream(spec);
  EXPECT_EQ(fnv1a(a), fnv1a(generate_stream(spec)));
  // Pins the stream: a change here changes every benchmark stream, so it must be deliberate.
  EXPECT_EQ(fnv1a(a), 0x791b38cd45dd1d70ull) << std::hex << fnv1a(a);
  // Any block, generated on its own, is the same slice.
  const StreamGenerator generator(spec);
  for (const std::uint64_t first : {0ull, 1ull, 4095ull, 50000ull, 99990ull}) {
    std::vector<StreamTuple> block(std::min<std::uint64_t>(10, spec.n - first));
    generator.generate(first, block);
    EXPECT_EQ(std::memcmp(block.data(), a.data() + first, block.size() * sizeof(StreamTuple)), 0) << first;
  }
  spec.seed = 43;
  EXPECT_NE(fnv1a(a), fnv1a(generate_stream(spec)));
}

TEST(StreamGenerator, PayloadInThePapersRange) {
  for (const StreamTuple& t : generate_stream(spec_of(20000, 5))) {
    EXPECT_LT(t.key, 5u);
    for (const std::int32_t v : t.ints) EXPECT_TRUE(v >= 0 && v < 1000) << v;
    for (const float v : t.floats) EXPECT_TRUE(v >= 0 && v < 1000) << v;
  }
}

TEST(StreamGenerator, UniformKeysAreUniform) {
  const std::uint64_t n = 200000;
  std::vector<std::uint64_t> freq(10);
  for (const StreamTuple& t : generate_stream(spec_of(n, 10))) ++freq.at(t.key);
  for (const std::uint64_t f : freq)
    EXPECT_NEAR(static_cast<double>(f), n / 10.0, 6 * std::sqrt(n * 0.09)) << f;
}

TEST(StreamGenerator, ZipfKeysFollowTheirLaw) {
  const std::uint64_t n = 400000;
  const std::uint32_t k = 100;
  StreamGeneratorSpec spec = spec_of(n, k);
  spec.zipf = 0.9;
  std::vector<std::uint64_t> freq(k);
  for (const StreamTuple& t : generate_stream(spec)) ++freq.at(t.key);
  double h = 0;
  for (std::uint32_t r = 1; r <= k; ++r) h += std::pow(r, -0.9);
  for (const std::uint32_t r : {0u, 1u, 9u, 99u}) {
    const double p = std::pow(r + 1, -0.9) / h;
    EXPECT_NEAR(static_cast<double>(freq[r]), n * p, 6 * std::sqrt(n * p * (1 - p)) + 1) << "rank " << r;
  }
  EXPECT_GT(freq[0], freq[1]);
  EXPECT_GT(freq[1], freq[10]);
  EXPECT_GT(freq[10], freq[99]);
}

TEST(StreamGenerator, DelaysHaveTheRequestedAverage) {
  const std::uint64_t n = 200000;
  for (const auto dist : {DelayDistribution::uniform, DelayDistribution::exponential}) {
    StreamGeneratorSpec spec = spec_of(n, 1, 50, dist);
    spec.rate = 2;
    const auto tuples = generate_stream(spec);
    double sum = 0;
    std::int64_t max_delay = 0;
    std::uint64_t counted = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::int64_t d = arrival(i, spec.rate) - tuples[i].timestamp;
      ASSERT_GE(d, 0);
      ASSERT_GE(tuples[i].timestamp, 0);
      max_delay = std::max(max_delay, d);
      if (arrival(i, spec.rate) < 2000) continue;  // the clamp at 0 shortens early delays
      sum += static_cast<double>(d);
      ++counted;
    }
    EXPECT_NEAR(sum / static_cast<double>(counted), 50.0, 0.6) << to_string(dist);
    if (dist == DelayDistribution::uniform) {
      EXPECT_EQ(max_delay, 100);
    } else {
      EXPECT_GT(max_delay, 300);
    }
  }
}

TEST(StreamGenerator, ZeroDelayIsInOrderAtTheRate) {
  StreamGeneratorSpec spec = spec_of(1000);
  spec.rate = 4;
  const auto tuples = generate_stream(spec);
  for (std::uint64_t i = 0; i < tuples.size(); ++i)
    EXPECT_EQ(tuples[i].timestamp, static_cast<std::int64_t>(i / 4));
  spec.rate = 0.5;  // one tuple every two time units
  EXPECT_EQ(generate_stream(spec)[3].timestamp, 6);
}

// Replays the DESIGN.md lateness rule: a tuple is late when ts + L < the running maximum of
// the watermarks before it.
std::uint64_t late_tuples(const StreamColumns<std::int32_t>& c, std::int64_t lateness) {
  std::int64_t wm = INT64_MIN;
  std::uint64_t late = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (wm != INT64_MIN && c.timestamps[i] + lateness < wm) ++late;
    wm = std::max(wm, c.watermarks[i]);
  }
  return late;
}

TEST(StreamGenerator, BoundedDelayWatermarks) {
  StreamGeneratorSpec spec = spec_of(300000, 3, 40);
  const auto tuples = generate_stream(spec);
  EXPECT_EQ(spec.bound(), 80);
  const auto c = project<std::int32_t>(tuples, StreamField::int_value, spec.bound());
  std::int64_t max_ts = 0;
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    max_ts = std::max(max_ts, tuples[i].timestamp);
    ASSERT_EQ(c.watermarks[i], max_ts - 80) << i;
  }
  // The default bound of uniform delays is the largest delay: nothing is late.
  EXPECT_EQ(late_tuples(c, 0), 0u);
  // A tighter bound makes some tuples late; lateness gives them back.
  const auto tight = project<std::int32_t>(tuples, StreamField::int_value, 20);
  EXPECT_GT(late_tuples(tight, 0), 1000u);
  EXPECT_EQ(late_tuples(tight, 60), 0u);
  // Exponential delays: the default bound of 10 D leaves about e^-10 of the tuples late.
  spec.delay_distribution = DelayDistribution::exponential;
  EXPECT_EQ(spec.bound(), 400);
  const auto e = project<std::int32_t>(generate_stream(spec), StreamField::int_value, spec.bound());
  EXPECT_LT(late_tuples(e, 0), 100u);
}

// Generating straight into columns writes exactly what generate() then project() writes, for
// both fields, every value type, sequential and parallel batches, and watermarks carried across
// batches whose timestamps fall behind the maximum so far (large delays, so whole chunks are lifted).
template <class V>
void expect_generated_columns_equal_projection(const StreamGeneratorSpec& spec, StreamField field,
                                               int threads) {
  const StreamGenerator generator(spec);
  std::vector<StreamTuple> tuples(spec.n);
  generator.generate(0, tuples);
  const auto expected = project<V>(tuples, field, spec.bound());
  StreamColumns<V> got(spec.n);
  BoundedDelayWatermarks wm(spec.bound());
  std::size_t first = 0;
  for (const std::size_t size : {std::size_t{3}, std::size_t{70000}, std::size_t{1}, std::size_t{250000}}) {
    const std::size_t n = std::min(size, spec.n - first);
    const StreamColumnSpans<V> spans{
        std::span(got.keys).subspan(first), std::span(got.timestamps).subspan(first),
        std::span(got.values).subspan(first), std::span(got.watermarks).subspan(first)};
    const auto batch = generator.generate_columns<V>(first, n, field, wm, spans, threads);
    ASSERT_EQ(batch.size(), n);
    ASSERT_EQ(batch.values.data(), got.values.data() + first);
    first += n;
  }
  ASSERT_EQ(first, spec.n);
  EXPECT_EQ(got.keys, expected.keys);
  EXPECT_EQ(got.timestamps, expected.timestamps);
  EXPECT_EQ(got.values, expected.values);
  EXPECT_EQ(got.watermarks, expected.watermarks);
}

TEST(StreamGenerator, GeneratedColumnsEqualGenerateThenProject) {
  StreamGeneratorSpec zipf_late = spec_of(320003, 50, 20000, DelayDistribution::exponential);
  zipf_late.zipf = 1.1;
  zipf_late.watermark_bound = 7;
  StreamGeneratorSpec slow = spec_of(320003, 3, 3);
  slow.rate = 0.25;
  for (const StreamGeneratorSpec& spec : {spec_of(320003), zipf_late, slow}) {
    for (const int threads : {1, 3, 4}) {
      expect_generated_columns_equal_projection<std::int32_t>(spec, StreamField::int_value, threads);
      expect_generated_columns_equal_projection<double>(spec, StreamField::float_value, threads);
      expect_generated_columns_equal_projection<float>(spec, StreamField::float_value, threads);
      expect_generated_columns_equal_projection<std::int64_t>(spec, StreamField::float_value, threads);
    }
  }
}

TEST(StreamGenerator, GeneratedColumnsAreCheckedForRoom) {
  const StreamGenerator generator(spec_of(100));
  StreamColumns<float> c(99);
  BoundedDelayWatermarks wm(0);
  EXPECT_THROW(generator.generate_columns<float>(0, 100, StreamField::float_value, wm, c.spans()), Error);
  EXPECT_EQ(wm.max_timestamp(), 0);
}

TEST(StreamGenerator, ProjectionInBatchesEqualsOneProjection) {
  const StreamGeneratorSpec spec = spec_of(200000, 7, 100, DelayDistribution::exponential);
  const auto tuples = generate_stream(spec);
  const auto whole = project<double>(tuples, StreamField::float_value, 33);
  // Small batches (sequential) and large ones (the parallel path) continue the policy's state.
  StreamColumns<double> parts(tuples.size());
  BoundedDelayWatermarks wm(33);
  std::size_t first = 0;
  for (const std::size_t size : {1000u, 1u, 150000u, 49000u - 1u}) {
    const StreamColumnSpans<double> spans{
        std::span(parts.keys).subspan(first), std::span(parts.timestamps).subspan(first),
        std::span(parts.values).subspan(first), std::span(parts.watermarks).subspan(first)};
    const auto batch =
        project<double>(std::span(tuples).subspan(first, size), StreamField::float_value, wm, spans, 4);
    EXPECT_EQ(batch.size(), size);
    first += size;
  }
  ASSERT_EQ(first, tuples.size());
  EXPECT_EQ(parts.keys, whole.keys);
  EXPECT_EQ(parts.timestamps, whole.timestamps);
  EXPECT_EQ(parts.values, whole.values);
  EXPECT_EQ(parts.watermarks, whole.watermarks);
  for (std::size_t i = 0; i < tuples.size(); i += 997) {
    EXPECT_EQ(whole.values[i], static_cast<double>(tuples[i].floats[0]));
    EXPECT_EQ(whole.keys[i], tuples[i].key);
  }
  const auto ints = project<std::int64_t>(std::span(tuples).first(10), StreamField::int_value, 0);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(ints.values[i], tuples[i].ints[0]);
  const auto batch = ints.batch(2, 5);
  EXPECT_EQ(batch.size(), 5u);
  EXPECT_EQ(batch.values[0], tuples[2].ints[0]);
}

TEST(StreamGenerator, ProjectionIntoShortColumnsIsAnError) {
  const auto tuples = generate_stream(spec_of(10));
  StreamColumns<float> c(9);
  BoundedDelayWatermarks wm(0);
  EXPECT_THROW(project<float>(tuples, StreamField::float_value, wm, c.spans()), Error);
}

TEST(StreamGenerator, CsvReadsBackAsTheProjection) {
  StreamGeneratorSpec spec = spec_of(5000, 20, 10, DelayDistribution::uniform);
  spec.zipf = 0.5;
  const auto tuples = generate_stream(spec);
  for (const auto field : {StreamField::int_value, StreamField::float_value}) {
    std::ostringstream text;
    write_stream_csv(text, spec, field);
    EXPECT_TRUE(text.str().starts_with("key,ts,value,wm\n"));
    StreamCsvOptions options;
    options.value_type = field == StreamField::int_value ? ColumnType::int32 : ColumnType::float32;
    const StreamCsv csv = parse_stream_csv(text.str(), "g.csv", options);
    if (field == StreamField::int_value) {
      const auto c = project<std::int32_t>(tuples, field, spec.bound());
      EXPECT_EQ(std::get<std::vector<std::int32_t>>(csv.values), c.values);
      EXPECT_EQ(csv.keys, c.keys);
      EXPECT_EQ(csv.timestamps, c.timestamps);
      EXPECT_EQ(csv.watermarks, c.watermarks);
    } else {
      EXPECT_EQ(std::get<std::vector<float>>(csv.values), project<float>(tuples, field, spec.bound()).values);
    }
  }
}

TEST(StreamGenerator, BadSpecsNameTheParameter) {
  const auto error_of = [](StreamGeneratorSpec spec) -> std::string {
    try {
      spec.validate();
    } catch (const Error& e) {
      EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::bad_argument));
      return e.what();
    }
    return "no error";
  };
  StreamGeneratorSpec s = spec_of(10);
  EXPECT_EQ(error_of(s), "no error");
  s.keys = 0;
  EXPECT_THAT(error_of(s), HasSubstr("keys"));
  s = spec_of(10);
  s.zipf = -0.5;
  EXPECT_THAT(error_of(s), HasSubstr("zipf"));
  s.zipf = 0.9;
  s.keys = StreamGeneratorSpec::max_zipf_keys + 1;
  EXPECT_THAT(error_of(s), HasSubstr("Zipf table"));
  s = spec_of(10);
  s.rate = 0;
  EXPECT_THAT(error_of(s), HasSubstr("rate"));
  s = spec_of(10);
  s.delay = std::nan("");
  EXPECT_THAT(error_of(s), HasSubstr("delay"));
  s = spec_of(10);
  s.watermark_bound = -2;
  EXPECT_THAT(error_of(s), HasSubstr("watermark bound"));
  s = spec_of((std::uint64_t{1} << 40) + 1);
  EXPECT_THAT(error_of(s), HasSubstr("n = "));
  EXPECT_THROW(parse_delay_distribution("--delay-dist", "normal"), Error);
  EXPECT_EQ(parse_delay_distribution("--delay-dist", "exponential"), DelayDistribution::exponential);
}

}  // namespace
}  // namespace sextant::datagen
