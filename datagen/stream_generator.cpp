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
void fill_payload(StreamTuple& t, std::uint64_t ints, std::uint64_t floats) noexcept {
  constexpr std::uint64_t mask21 = (1u << 21) - 1;
  for (int k = 0; k < 3; ++k)
    t.ints[k] = static_cast<std::int32_t>((((ints >> (43 - 21 * k)) & mask21) * 1000) >> 21);
  constexpr double scale = 1000.0 * 0x1.0p-24;
  t.floats[0] = static_cast<float>(static_cast<double>(floats >> 40) * scale);
  t.floats[1] = static_cast<float>(static_cast<double>((floats >> 16) & 0xFFFFFF) * scale);
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

void StreamGenerator::generate(std::uint64_t first, std::span<StreamTuple> out, int threads) const {
  const auto n = static_cast<std::int64_t>(out.size());
  const int team = threads > 0 ? threads : omp_get_max_threads();
  const std::uint64_t seed = detail::mix64(spec_.seed);
  const double two_d = 2 * spec_.delay;
  const bool exponential = spec_.delay_distribution == DelayDistribution::exponential;
#pragma omp parallel for schedule(static) num_threads(team) if (n > block_tuples && team > 1)
  for (std::int64_t j = 0; j < n; ++j) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(j);
    const std::uint64_t draw = i * draws_per_tuple;
    StreamTuple& t = out[static_cast<std::size_t>(j)];
    const std::uint64_t key_bits = detail::splitmix64_at(seed, draw);
    if (zipf_cdf_.empty()) {
      t.key = static_cast<std::uint32_t>(detail::below(key_bits, spec_.keys));
    } else {
      const double u = detail::unit_interval(key_bits) * zipf_cdf_.back();
      const auto rank = std::upper_bound(zipf_cdf_.begin(), zipf_cdf_.end(), u) - zipf_cdf_.begin();
      t.key = static_cast<std::uint32_t>(std::min<std::int64_t>(rank, spec_.keys - 1));
    }
    const auto arrival = static_cast<std::int64_t>(std::floor(static_cast<double>(i) / spec_.rate));
    std::int64_t delay = 0;
    if (spec_.delay > 0) {
      const double u = detail::unit_interval(detail::splitmix64_at(seed, draw + 1));
      const double d = exponential ? -spec_.delay * detail::portable_log(1 - u) : u * two_d;
      delay = static_cast<std::int64_t>(std::floor(d + 0.5));
    }
    t.timestamp = std::max<std::int64_t>(0, arrival - delay);
    fill_payload(t, detail::splitmix64_at(seed, draw + 2), detail::splitmix64_at(seed, draw + 3));
  }
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
  const std::size_t n = tuples.size();
  const std::size_t shortest =
      std::min({out.keys.size(), out.timestamps.size(), out.values.size(), out.watermarks.size()});
  if (shortest < n)
    throw Error::argument("projection columns", std::to_string(shortest) + " entries",
                          "at least " + std::to_string(n) + " (the tuples projected)", "too short");
  // One pass over the tuples (each is read once, from memory that is usually cold): key,
  // timestamp, value, and the running maximum of the timestamps from `m` on, which it returns.
  // With `watermarks` set the watermarks are written in the same pass.
  const std::int64_t bound = watermarks.bound();
  const auto copy = [&](std::size_t lo, std::size_t hi, std::int64_t m, bool with_watermarks) {
    const auto run = [&](auto value_of) {
      for (std::size_t i = lo; i < hi; ++i) {
        const StreamTuple& t = tuples[i];
        out.keys[i] = t.key;
        out.timestamps[i] = t.timestamp;
        out.values[i] = value_of(t);
        m = std::max(m, t.timestamp);
        if (with_watermarks) out.watermarks[i] = m - bound;
      }
    };
    if (field == StreamField::int_value)
      run([](const StreamTuple& t) { return static_cast<V>(t.ints[0]); });
    else
      run([](const StreamTuple& t) { return static_cast<V>(t.floats[0]); });
    return m;
  };
  const int team = threads > 0 ? threads : omp_get_max_threads();
  if (n < static_cast<std::size_t>(block_tuples) * 4 || team <= 1) {
    watermarks.set_max_timestamp(copy(0, n, watermarks.max_timestamp(), true));
  } else {
    // The watermark is a running maximum: chunk maxima first (with the copy), then each chunk's
    // watermarks from its carry (the timestamps are then in the thread's cache).
    std::vector<std::int64_t> chunk_max(static_cast<std::size_t>(team), 0);
    const std::size_t chunk = (n + static_cast<std::size_t>(team) - 1) / static_cast<std::size_t>(team);
#pragma omp parallel for schedule(static, 1) num_threads(team)
    for (int c = 0; c < team; ++c) {
      const std::size_t lo = std::min(n, static_cast<std::size_t>(c) * chunk), hi = std::min(n, lo + chunk);
      chunk_max[static_cast<std::size_t>(c)] = copy(lo, hi, 0, false);
    }
    std::int64_t carry = watermarks.max_timestamp();
    for (auto& m : chunk_max) {  // becomes the maximum before the chunk
      const std::int64_t in_chunk = m;
      m = carry;
      carry = std::max(carry, in_chunk);
    }
#pragma omp parallel for schedule(static, 1) num_threads(team)
    for (int c = 0; c < team; ++c) {
      const std::size_t lo = std::min(n, static_cast<std::size_t>(c) * chunk), hi = std::min(n, lo + chunk);
      std::int64_t m = chunk_max[static_cast<std::size_t>(c)];
      for (std::size_t i = lo; i < hi; ++i) {
        m = std::max(m, out.timestamps[i]);
        out.watermarks[i] = m - bound;
      }
    }
    watermarks.set_max_timestamp(carry);
  }
  return {out.keys.first(n), out.timestamps.first(n), out.values.first(n), out.watermarks.first(n)};
}

template <window::WindowValue V>
StreamColumns<V> project(std::span<const StreamTuple> tuples, StreamField field,
                         std::int64_t watermark_bound) {
  StreamColumns<V> columns(tuples.size());
  BoundedDelayWatermarks watermarks(watermark_bound);
  project<V>(tuples, field, watermarks, columns.spans());
  return columns;
}

#define SEXTANT_PROJECT(V)                                                                               \
  template window::StreamBatch<V> project<V>(std::span<const StreamTuple>, StreamField,                  \
                                             BoundedDelayWatermarks&, const StreamColumnSpans<V>&, int); \
  template StreamColumns<V> project<V>(std::span<const StreamTuple>, StreamField, std::int64_t);
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
