// Out-of-order keyed streams for the stream-window family (paper 000, SPRINGALD, section VI):
// the paper's 32-byte tuple, a seeded generator with controlled disorder, per-tuple watermarks
// from a bounded-delay policy, and the projection of tuples into the columns of a StreamBatch.
//
// Generation (a pure function of the spec: the same tuples on every machine, compiler and
// thread count). Tuple i, in arrival (= generation) order:
//   key        uniform over 0..K-1, or Zipf(theta) over the ranks 0..K-1 (key 0 the most frequent)
//   arrival    floor(i / rate)                              (rate: tuples per time unit)
//   delay      uniform on [0, 2D] or exponential with mean D, rounded to the nearest unit
//   timestamp  max(0, arrival - delay)                      (the event time)
//   ints       three int32 uniform in [0, 1000), floats two float32 uniform in [0, 1000)
// Randomness: draws 4i..4i+3 of splitmix64(seed), log/exp from datagen/portable_math.hpp.
//
// Watermarks (not part of the tuple, as in the paper): after tuple i the source's watermark
// is max(timestamps 0..i) - bound. A tuple whose delay exceeds bound + L can be late.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "templates/window/stream_batch.hpp"

namespace sextant::datagen {

struct StreamTuple {
  std::uint32_t key = 0;  // the first of the four 32-bit integers
  std::int32_t ints[3] = {};
  float floats[2] = {};
  std::int64_t timestamp = 0;  // event time, >= 0
};
static_assert(sizeof(StreamTuple) == 32, "the paper's tuple is 32 bytes");

enum class DelayDistribution : std::uint8_t { uniform, exponential };

std::string_view to_string(DelayDistribution distribution) noexcept;
// "uniform" or "exp" ("exponential" too); throws Error naming `parameter`.
DelayDistribution parse_delay_distribution(const char* parameter, std::string_view text);

struct StreamGeneratorSpec {
  static constexpr std::uint32_t max_zipf_keys = 1u << 24;  // Zipf keeps a K-entry table
  static constexpr double max_delay = 0x1.0p40;

  std::uint64_t n = 0;
  std::uint32_t keys = 1;  // K >= 1
  double zipf = 0;         // theta: 0 = uniform keys, else Zipf (0 < theta <= 10)
  double rate = 1;         // tuples per time unit, > 0
  double delay = 0;        // average delay D >= 0, time units
  DelayDistribution delay_distribution = DelayDistribution::uniform;
  std::int64_t watermark_bound = -1;  // -1: default_watermark_bound(); else >= 0
  std::uint64_t seed = 1;

  // Throws Error::argument naming the parameter (n, keys, zipf, rate, delay, watermark bound)
  // and its valid range.
  void validate() const;
  // Uniform: ceil(2D), the largest delay, so nothing is late. Exponential: ceil(10 D), so
  // about e^-10 (5e-5) of the tuples can be late.
  std::int64_t default_watermark_bound() const noexcept;
  std::int64_t bound() const noexcept {
    return watermark_bound >= 0 ? watermark_bound : default_watermark_bound();
  }
  // "n=1000 keys=10 zipf=0.9 rate=1 delay=5 uniform bound=10 seed=1"
  std::string describe() const;
};

// The bounded-delay watermark policy, one state per stream.
class BoundedDelayWatermarks {
 public:
  explicit BoundedDelayWatermarks(std::int64_t bound) noexcept : bound_(bound) {}
  // The source's watermark after a tuple with event time `ts` (>= 0).
  std::int64_t next(std::int64_t ts) noexcept {
    if (ts > max_ts_) max_ts_ = ts;
    return max_ts_ - bound_;
  }
  std::int64_t bound() const noexcept { return bound_; }
  std::int64_t max_timestamp() const noexcept { return max_ts_; }
  void set_max_timestamp(std::int64_t ts) noexcept { max_ts_ = ts; }

 private:
  std::int64_t bound_;
  std::int64_t max_ts_ = 0;  // timestamps are >= 0
};

// Which field of the tuple is the aggregated value.
enum class StreamField : std::uint8_t { int_value, float_value };  // ints[0] or floats[0]

// Caller-owned columns (host or pinned memory) of at least `tuples.size()` entries each.
template <window::WindowValue V>
struct StreamColumnSpans {
  std::span<window::StreamKey> keys;
  std::span<std::int64_t> timestamps;
  std::span<V> values;
  std::span<std::int64_t> watermarks;
};

// Writes tuples' key, timestamp, `field` (converted to V) and watermark into `out` and returns
// the batch that views them. Large spans are projected by `threads` OpenMP threads (0: the
// OpenMP default). Throws Error::argument when a span is too short.
template <window::WindowValue V>
window::StreamBatch<V> project(std::span<const StreamTuple> tuples, StreamField field,
                               BoundedDelayWatermarks& watermarks, const StreamColumnSpans<V>& out,
                               int threads = 0);

// Generates any block of the stream; builds the Zipf table once (validates the spec first).
class StreamGenerator {
 public:
  explicit StreamGenerator(const StreamGeneratorSpec& spec);
  const StreamGeneratorSpec& spec() const noexcept { return spec_; }
  // Tuples first .. first + out.size() - 1 (OpenMP across a large block with `threads`
  // threads, 0: every core; any block, any thread).
  void generate(std::uint64_t first, std::span<StreamTuple> out, int threads = 0) const;
  // Tuples first .. first + n - 1 projected straight into `out`, exactly as project() writes
  // them, without the tuples in memory: each thread generates and writes its rows in one pass.
  template <window::WindowValue V>
  window::StreamBatch<V> generate_columns(std::uint64_t first, std::size_t n, StreamField field,
                                          BoundedDelayWatermarks& watermarks, const StreamColumnSpans<V>& out,
                                          int threads = 0) const;

 private:
  class Draws;

  StreamGeneratorSpec spec_;
  std::vector<double> zipf_cdf_;  // cumulative, unnormalised rank weights; empty for uniform keys
};

// The whole stream.
std::vector<StreamTuple> generate_stream(const StreamGeneratorSpec& spec);

// Owned columns, for callers without memory of their own.
template <window::WindowValue V>
struct StreamColumns {
  std::vector<window::StreamKey> keys;
  std::vector<std::int64_t> timestamps;
  std::vector<V> values;
  std::vector<std::int64_t> watermarks;

  explicit StreamColumns(std::size_t n = 0) : keys(n), timestamps(n), values(n), watermarks(n) {}
  std::size_t size() const noexcept { return values.size(); }
  StreamColumnSpans<V> spans() noexcept { return {keys, timestamps, values, watermarks}; }
  // The batch of tuples [first, first + count).
  window::StreamBatch<V> batch(std::size_t first, std::size_t count) const noexcept {
    return {std::span(keys).subspan(first, count), std::span(timestamps).subspan(first, count),
            std::span(values).subspan(first, count), std::span(watermarks).subspan(first, count)};
  }
};

template <window::WindowValue V>
StreamColumns<V> project(std::span<const StreamTuple> tuples, StreamField field,
                         std::int64_t watermark_bound);

// The stream as CSV `key,ts,value,wm` with a header line (datagen/stream_csv.hpp reads it back):
// the value is ints[0] (int_value) or floats[0] printed shortest round-trip (float_value).
void write_stream_csv(std::ostream& out, const StreamGeneratorSpec& spec, StreamField field);
// All or nothing (core/atomic_file.hpp).
void write_stream_csv(const std::string& path, const StreamGeneratorSpec& spec, StreamField field);

}  // namespace sextant::datagen
