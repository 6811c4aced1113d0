#include "datagen/stream_generator.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "datagen/portable_math.hpp"
#include "datagen/stream_csv.hpp"

namespace sextant::datagen {
namespace {

constexpr std::uint64_t draws_per_tuple = 4;  // key, delay, the ints, the floats
constexpr std::uint64_t max_tuples = std::uint64_t{1} << 40;
constexpr std::int64_t block_tuples = 1 << 14;  // unit of parallel work and of CSV writing

void check(bool ok, const char* parameter, double value, const std::string& valid) {
  if (!ok) throw Error::argument(parameter, format_number(value), valid);
}

// Three int32 in [0, 1000) from 21-bit slices, two float32 in [0, 1000) from 24-bit slices
// (c * 1000 / 2^24 is exact in double and rounds to a float below 1000).
constexpr std::int32_t int_field(std::uint64_t bits, int k) noexcept {
  constexpr std::uint64_t mask21 = (1u << 21) - 1;
  return static_cast<std::int32_t>((((bits >> (43 - 21 * k)) & mask21) * 1000) >> 21);
}
constexpr float float_field(std::uint64_t bits, int k) noexcept {
  constexpr double scale = 1000.0 * 0x1.0p-24;
  return static_cast<float>(static_cast<double>(k == 0 ? bits >> 40 : (bits >> 16) & 0xFFFFFF) * scale);
}

// One row of a projection: what project() takes from a tuple.
template <class V>
struct Row {
  std::uint32_t key;
  std::int64_t timestamp;
  V value;
};

// Writes rows 0 .. n-1 (row(i) gives each) into `out` with their watermarks, in one pass over
// the rows on `threads` OpenMP threads (0: the OpenMP default), and continues `watermarks`.
// A watermark is the running maximum of the timestamps, less the bound. Each thread starts its
// chunk's maximum at 0 (timestamps are >= 0), then lifts the prefix of its chunk whose maximum is
// still below the maximum before the chunk (usually a few rows), so no second pass reads the
// timestamps again.
template <window::WindowValue V, class RowAt>
window::StreamBatch<V> fill_columns(std::size_t n, BoundedDelayWatermarks& watermarks,
                                    const StreamColumnSpans<V>& out, int threads, RowAt row) {
  const std::size_t shortest =
      std::min({out.keys.size(), out.timestamps.size(), out.values.size(), out.watermarks.size()});
  if (shortest < n)
    throw Error::argument("projection columns", std::to_string(shortest) + " entries",
                          "at least " + std::to_string(n) + " (the tuples projected)", "too short");
  const std::int64_t bound = watermarks.bound();
  const auto write = [&](std::size_t lo, std::size_t hi) {
    std::int64_t m = 0;
    for (std::size_t i = lo; i < hi; ++i) {
      const Row<V> r = row(i);
      out.keys[i] = r.key;
      out.timestamps[i] = r.timestamp;
      out.values[i] = r.value;
      m = std::max(m, r.timestamp);
      out.watermarks[i] = m - bound;
    }
    return m;
  };
  const auto lift = [&](std::size_t lo, std::size_t hi, std::int64_t before) {
    const std::int64_t floor = before - bound;
    for (std::size_t i = lo; i < hi && out.watermarks[i] < floor; ++i) out.watermarks[i] = floor;
  };
  const std::int64_t before = watermarks.max_timestamp();
  const int team = threads > 0 ? threads : omp_get_max_threads();
  if (n < static_cast<std::size_t>(block_tuples) * 4 || team <= 1) {
    const std::int64_t m = write(0, n);
    lift(0, n, before);
    watermarks.set_max_timestamp(std::max(before, m));
  } else {
    std::vector<std::int64_t> chunk_max(static_cast<std::size_t>(team), 0);
#pragma omp parallel num_threads(team)
    {
      const auto t = static_cast<std::size_t>(omp_get_num_threads());
      const auto c = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t chunk = (n + t - 1) / t;
      const std::size_t lo = std::min(n, c * chunk), hi = std::min(n, lo + chunk);
      chunk_max[c] = write(lo, hi);
#pragma omp barrier
      std::int64_t carry = before;
      for (std::size_t k = 0; k < c; ++k) carry = std::max(carry, chunk_max[k]);
      lift(lo, hi, carry);
    }
    watermarks.set_max_timestamp(std::max(before, *std::max_element(chunk_max.begin(), chunk_max.end())));
  }
  return {out.keys.first(n), out.timestamps.first(n), out.values.first(n), out.watermarks.first(n)};
}

}  // namespace

std::string_view to_string(DelayDistribution distribution) noexcept {
  return distribution == DelayDistribution::uniform ? "uniform" : "exp";
}

DelayDistribution parse_delay_distribution(const char* parameter, std::string_view text) {
  if (text == "uniform") return DelayDistribution::uniform;
  if (text == "exp" || text == "exponential") return DelayDistribution::exponential;
  throw Error::argument(parameter, text, "uniform or exp", "unknown delay distribution");
}

void StreamGeneratorSpec::validate() const {
  if (n > max_tuples)
    throw Error::argument("n", std::to_string(n), "0 .. 2^40 = " + std::to_string(max_tuples));
  if (keys == 0) throw Error::argument("keys", "0", "1 .. 4294967295");
  check(std::isfinite(zipf) && zipf >= 0 && zipf <= 10, "zipf", zipf, "0 (uniform keys) .. 10");
  if (zipf > 0 && keys > max_zipf_keys)
    throw Error::argument("keys", std::to_string(keys),
                          "1 .. " + std::to_string(max_zipf_keys) + " with zipf > 0",
                          "too many keys for the Zipf table");
  check(std::isfinite(rate) && rate > 0 && static_cast<double>(n) / rate <= 0x1.0p53, "rate", rate,
        "tuples per time unit, > 0, with n / rate <= 2^53");
  check(std::isfinite(delay) && delay >= 0 && delay <= max_delay, "delay", delay, "0 .. 2^40 time units");
  if (watermark_bound < -1 || watermark_bound > (std::int64_t{1} << 62))
    throw Error::argument("watermark bound", std::to_string(watermark_bound),
                          "0 .. 2^62 (or -1: the default)");
}

std::int64_t StreamGeneratorSpec::default_watermark_bound() const noexcept {
  const double factor = delay_distribution == DelayDistribution::uniform ? 2.0 : 10.0;
  return static_cast<std::int64_t>(std::ceil(factor * delay));
}

std::string StreamGeneratorSpec::describe() const {
  std::string out = "n=" + std::to_string(n) + " keys=" + std::to_string(keys);
  if (zipf > 0) out += " zipf=" + format_number(zipf);
  out += " rate=" + format_number(rate) + " delay=" + format_number(delay) + " " +
         std::string(to_string(delay_distribution)) + " bound=" + std::to_string(bound()) +
         " seed=" + std::to_string(seed);
  return out;
}

StreamGenerator::StreamGenerator(const StreamGeneratorSpec& spec) : spec_(spec) {
  spec_.validate();
  if (spec_.zipf > 0) {
    // Rank r has weight (r + 1)^-theta; the table is built in one order, so it is exact to the bit.
    zipf_cdf_.resize(spec_.keys);
    double total = 0;
    for (std::uint32_t r = 0; r < spec_.keys; ++r) {
      total += detail::portable_exp(-spec_.zipf * detail::portable_log(static_cast<double>(r) + 1));
      zipf_cdf_[r] = total;
    }
  }
}

// Tuple i's fields, with what does not depend on i computed once. Inlined into every loop that
// draws them (GCC otherwise calls them from the sequential loops: a quarter of a one-thread run).
class StreamGenerator::Draws {
 public:
  explicit Draws(const StreamGenerator& g)
      : spec_(g.spec_),
        zipf_cdf_(g.zipf_cdf_),
        seed_(detail::mix64(g.spec_.seed)),
        two_d_(2 * g.spec_.delay),
        exponential_(g.spec_.delay_distribution == DelayDistribution::exponential) {}

  [[gnu::always_inline]] std::uint32_t key(std::uint64_t i) const noexcept {
    if (spec_.keys == 1) return 0;  // below(bits, 1) for any bits
    const std::uint64_t bits = detail::splitmix64_at(seed_, i * draws_per_tuple);
    if (zipf_cdf_.empty()) return static_cast<std::uint32_t>(detail::below(bits, spec_.keys));
    const double u = detail::unit_interval(bits) * zipf_cdf_.back();
    const auto rank = std::upper_bound(zipf_cdf_.begin(), zipf_cdf_.end(), u) - zipf_cdf_.begin();
    return static_cast<std::uint32_t>(std::min<std::int64_t>(rank, spec_.keys - 1));
  }
  // floor(x) of the spec's x >= 0 (below 2^53 by validate()) is its conversion to an integer, which
  // needs no call into libm.
  [[gnu::always_inline]] std::int64_t timestamp(std::uint64_t i) const noexcept {
    const auto arrival = static_cast<std::int64_t>(static_cast<double>(i) / spec_.rate);
    std::int64_t delay = 0;
    if (spec_.delay > 0) {
      const double u = detail::unit_interval(detail::splitmix64_at(seed_, i * draws_per_tuple + 1));
      const double d = exponential_ ? -spec_.delay * detail::portable_log(1 - u) : u * two_d_;
      delay = static_cast<std::int64_t>(d + 0.5);
    }
    return std::max<std::int64_t>(0, arrival - delay);
  }
  std::uint64_t int_bits(std::uint64_t i) const noexcept {
    return detail::splitmix64_at(seed_, i * draws_per_tuple + 2);
  }
  std::uint64_t float_bits(std::uint64_t i) const noexcept {
    return detail::splitmix64_at(seed_, i * draws_per_tuple + 3);
  }
  StreamTuple tuple(std::uint64_t i) const noexcept {
    StreamTuple t;
    t.key = key(i);
    const std::uint64_t ints = int_bits(i), floats = float_bits(i);
    for (int k = 0; k < 3; ++k) t.ints[k] = int_field(ints, k);
    for (int k = 0; k < 2; ++k) t.floats[k] = float_field(floats, k);
    t.timestamp = timestamp(i);
    return t;
  }

 private:
  const StreamGeneratorSpec& spec_;
  const std::vector<double>& zipf_cdf_;
  std::uint64_t seed_;
  double two_d_;
  bool exponential_;
};

void StreamGenerator::generate(std::uint64_t first, std::span<StreamTuple> out, int threads) const {
  const auto n = static_cast<std::int64_t>(out.size());
  const int team = threads > 0 ? threads : omp_get_max_threads();
  const Draws draws(*this);
#pragma omp parallel for schedule(static) num_threads(team) if (n > block_tuples && team > 1)
  for (std::int64_t j = 0; j < n; ++j)
    out[static_cast<std::size_t>(j)] = draws.tuple(first + static_cast<std::uint64_t>(j));
}

template <window::WindowValue V>
window::StreamBatch<V> StreamGenerator::generate_columns(std::uint64_t first, std::size_t n,
                                                         StreamField field,
                                                         BoundedDelayWatermarks& watermarks,
                                                         const StreamColumnSpans<V>& out, int threads) const {
  const Draws draws(*this);
  const auto rows = [&](auto value_of) {
    return fill_columns<V>(n, watermarks, out, threads, [&](std::size_t j) {
      const std::uint64_t i = first + j;
      return Row<V>{draws.key(i), draws.timestamp(i), value_of(i)};
    });
  };
  if (field == StreamField::int_value)
    return rows([&](std::uint64_t i) { return static_cast<V>(int_field(draws.int_bits(i), 0)); });
  return rows([&](std::uint64_t i) { return static_cast<V>(float_field(draws.float_bits(i), 0)); });
}

std::vector<StreamTuple> generate_stream(const StreamGeneratorSpec& spec) {
  const StreamGenerator generator(spec);
  std::vector<StreamTuple> tuples(spec.n);
  generator.generate(0, tuples);
  return tuples;
}

template <window::WindowValue V>
window::StreamBatch<V> project(std::span<const StreamTuple> tuples, StreamField field,
                               BoundedDelayWatermarks& watermarks, const StreamColumnSpans<V>& out,
                               int threads) {
  const auto rows = [&](auto value_of) {
    return fill_columns<V>(tuples.size(), watermarks, out, threads, [&](std::size_t i) {
      const StreamTuple& t = tuples[i];
      return Row<V>{t.key, t.timestamp, value_of(t)};
    });
  };
  if (field == StreamField::int_value)
    return rows([](const StreamTuple& t) { return static_cast<V>(t.ints[0]); });
  return rows([](const StreamTuple& t) { return static_cast<V>(t.floats[0]); });
}

template <window::WindowValue V>
StreamColumns<V> project(std::span<const StreamTuple> tuples, StreamField field,
                         std::int64_t watermark_bound) {
  StreamColumns<V> columns(tuples.size());
  BoundedDelayWatermarks watermarks(watermark_bound);
  project<V>(tuples, field, watermarks, columns.spans());
  return columns;
}

#define SEXTANT_PROJECT(V)                                                                                \
  template window::StreamBatch<V> project<V>(std::span<const StreamTuple>, StreamField,                   \
                                             BoundedDelayWatermarks&, const StreamColumnSpans<V>&, int);  \
  template StreamColumns<V> project<V>(std::span<const StreamTuple>, StreamField, std::int64_t);          \
  template window::StreamBatch<V> StreamGenerator::generate_columns<V>(                                   \
      std::uint64_t, std::size_t, StreamField, BoundedDelayWatermarks&, const StreamColumnSpans<V>&, int) \
      const;
SEXTANT_PROJECT(std::int32_t)
SEXTANT_PROJECT(std::int64_t)
SEXTANT_PROJECT(float)
SEXTANT_PROJECT(double)
#undef SEXTANT_PROJECT

void write_stream_csv(std::ostream& out, const StreamGeneratorSpec& spec, StreamField field) {
  const StreamGenerator generator(spec);
  BoundedDelayWatermarks watermarks(spec.bound());
  std::vector<StreamTuple> block(
      static_cast<std::size_t>(std::min<std::uint64_t>(spec.n, block_tuples * 16)));
  std::string buf(stream_csv_header);
  buf += '\n';
  for (std::uint64_t first = 0; first < spec.n; first += block.size()) {
    const std::span<StreamTuple> part(block.data(), std::min<std::uint64_t>(block.size(), spec.n - first));
    generator.generate(first, part);
    for (const StreamTuple& t : part) {
      const std::int64_t wm = watermarks.next(t.timestamp);
      if (field == StreamField::int_value)
        append_stream_csv_row(buf, t.key, t.timestamp, t.ints[0], wm);
      else
        append_stream_csv_row(buf, t.key, t.timestamp, t.floats[0], wm);
      buf += '\n';
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_stream_csv(const std::string& path, const StreamGeneratorSpec& spec, StreamField field) {
  AtomicFile file(path);
  write_stream_csv(file.stream(), spec, field);
  file.commit();
}

}  // namespace sextant::datagen
