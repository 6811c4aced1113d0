#include "datagen/skyline_generator.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/subspace.hpp"

namespace sextant::datagen {
namespace {

constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;
constexpr std::size_t max_points = 0xFFFFFFFEu;  // Dataset's 32-bit id limit
constexpr std::size_t block_points = 4096;       // unit of seeding and of parallel work

constexpr std::uint64_t mix64(std::uint64_t z) noexcept {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// xoshiro256** seeded through splitmix64; every operation is exact integer arithmetic or a
// single IEEE-rounded double operation (the library is built with -ffp-contract=off), so the
// stream is the same on every compiler and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept {
    for (auto& word : s_) {
      seed += golden_gamma;
      word = mix64(seed);
    }
  }

  std::uint64_t next() noexcept {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) from the top 53 bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }

  // The original generator's RandomPeak: the mean of k uniforms, scaled to [lo, hi).
  double peak(double lo, double hi, int k) noexcept {
    std::uint64_t sum = 0;  // k <= 32 values below 2^53: no overflow
    for (int i = 0; i < k; ++i) sum += next() >> 11;
    return lo + (hi - lo) * (static_cast<double>(sum) * 0x1.0p-53 / k);
  }

  // The original's RandomNormal: an Irwin-Hall bell (12 uniforms) on (med - half_width,
  // med + half_width), standard deviation half_width / 6. Unlike Box-Muller it needs no libm
  // call, whose last bit may differ between platforms.
  double normal(double med, double half_width) noexcept {
    return peak(med - half_width, med + half_width, 12);
  }

 private:
  std::uint64_t s_[4];
};

// Stores x as floats if every one lies in [0, 1); a double just below 1 may round up to 1.0f,
// so the check is made after the conversion.
bool store_if_in_range(const double* x, int d, float* out) noexcept {
  for (int j = 0; j < d; ++j) {
    const float f = static_cast<float>(x[j]);
    if (!(f >= 0.0f && f < 1.0f)) return false;
  }
  for (int j = 0; j < d; ++j) out[j] = static_cast<float>(x[j]) + 0.0f;  // + 0 turns -0 into +0
  return true;
}

void fill_independent(Rng& rng, int d, float* out) noexcept {
  for (int j = 0; j < d; ++j) {
    float f;
    do f = static_cast<float>(rng.uniform());
    while (f >= 1.0f);
    out[j] = f;
  }
}

void fill_ties(Rng& rng, int d, int levels, float* out) noexcept {
  const double q = levels;
  for (int j = 0; j < d; ++j) {
    const auto k =
        std::min(static_cast<std::uint64_t>(rng.uniform() * q), static_cast<std::uint64_t>(levels - 1));
    out[j] = static_cast<float>(static_cast<double>(k) / q);
  }
}

// Points near the diagonal: v peaked around 0.5, each coordinate v plus a bell-shaped offset
// passed on to the next dimension (so the point stays near the plane through v), rejected
// when outside the unit cube. Exactly the original's GenerateDataCorrelated.
void fill_correlated(Rng& rng, int d, float* out) noexcept {
  double x[max_columns];
  do {
    const double v = rng.peak(0, 1, d);
    const double l = v <= 0.5 ? v : 1.0 - v;
    std::fill_n(x, d, v);
    for (int j = 0; j < d; ++j) {
      const double h = rng.normal(0, l);
      x[j] += h;
      x[(j + 1) % d] -= h;
    }
  } while (!store_if_in_range(x, d, out));
}

// Points near the plane sum(x) = d * v with v tightly around 0.5 (sd 0.25 / 6 ~ 0.04): amounts
// moved between neighbouring dimensions keep the sum, so a point good in one dimension is bad
// in another. The original's GenerateDataAnticorrelated draws every amount uniformly from
// [-l, l] and rejects the whole point when a coordinate leaves [0, 1); its acceptance rate
// falls exponentially with d (measured here: 1e6 x 16 points took 2.6 s, 1e6 x 32 two minutes).
// Here each amount is drawn uniformly from the part of [-l, l] that keeps both coordinates
// inside instead: the same moves, the same plane, no rejection.
void fill_anticorrelated(Rng& rng, int d, float* out) noexcept {
  double x[max_columns];
  do {
    const double v = rng.normal(0.5, 0.25);
    const double l = v <= 0.5 ? v : 1.0 - v;
    std::fill_n(x, d, v);
    for (int j = 0; d > 1 && j < d; ++j) {
      const int k = (j + 1) % d;
      const double lo = std::max({-l, -x[j], x[k] - 1.0});  // x[j] + h >= 0, x[k] - h < 1
      const double hi = std::min({l, 1.0 - x[j], x[k]});    // x[j] + h < 1,  x[k] - h >= 0
      const double h = rng.uniform(lo, hi);
      x[j] += h;
      x[k] -= h;
    }
  } while (!store_if_in_range(x, d, out));  // only when rounding lands on a bound
}

void fill_block(const GeneratorSpec& spec, std::uint64_t key, std::size_t block, float* out,
                std::size_t count) noexcept {
  Rng rng(key ^ mix64(block + 1));
  const auto d = static_cast<std::size_t>(spec.d);
  for (std::size_t i = 0; i < count; ++i, out += d) {
    switch (spec.distribution) {
      case Distribution::independent:
        fill_independent(rng, spec.d, out);
        break;
      case Distribution::correlated:
        fill_correlated(rng, spec.d, out);
        break;
      case Distribution::anticorrelated:
        fill_anticorrelated(rng, spec.d, out);
        break;
      case Distribution::ties:
        fill_ties(rng, spec.d, spec.levels, out);
        break;
    }
  }
}

std::string distribution_label(const GeneratorSpec& spec) {
  std::string label = to_string(spec.distribution);
  if (spec.distribution == Distribution::ties) {
    label += ':';  // appended in two steps: GCC 12 warns falsely (-Wrestrict) about ":" + std::string
    label += std::to_string(spec.levels);
  }
  return label;
}

// Whole-string unsigned integer; no sign, no spaces.
bool parse_unsigned(std::string_view text, std::uint64_t& value) noexcept {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

constexpr std::string_view valid_distributions = "indep, corr, anti, ties or ties:Q with Q in 2..16777216";

// Parses `dist` (a part of `whole`, which error messages quote) into spec.
void parse_distribution_into(const char* parameter, std::string_view whole, std::string_view dist,
                             std::string_view valid, GeneratorSpec& spec) {
  const std::size_t colon = dist.find(':');
  const std::string_view name = dist.substr(0, colon);
  const bool has_levels = colon != std::string_view::npos;
  if (name == "indep" || name == "independent") {
    spec.distribution = Distribution::independent;
  } else if (name == "corr" || name == "correlated") {
    spec.distribution = Distribution::correlated;
  } else if (name == "anti" || name == "anticorrelated") {
    spec.distribution = Distribution::anticorrelated;
  } else if (name == "ties") {
    spec.distribution = Distribution::ties;
  } else {
    throw Error::argument(parameter, whole, valid, "unknown distribution '" + std::string(name) + "'");
  }
  if (!has_levels) return;
  if (spec.distribution != Distribution::ties)
    throw Error::argument(parameter, whole, valid, "only 'ties' takes a level count");
  const std::string_view levels = dist.substr(colon + 1);
  std::uint64_t q = 0;
  if (!parse_unsigned(levels, q) || q < 2 || q > static_cast<std::uint64_t>(max_tie_levels))
    throw Error::argument(
        parameter, whole, valid,
        "tie levels '" + std::string(levels) + "' not an integer in 2.." + std::to_string(max_tie_levels));
  spec.levels = static_cast<int>(q);
}

}  // namespace

std::string to_string(Distribution distribution) {
  switch (distribution) {
    case Distribution::independent:
      return "indep";
    case Distribution::correlated:
      return "corr";
    case Distribution::anticorrelated:
      return "anti";
    case Distribution::ties:
      return "ties";
  }
  return "unknown";
}

Dataset generate(const GeneratorSpec& spec) {
  if (spec.d < 1 || spec.d > max_columns)
    throw Error::argument("d", std::to_string(spec.d), "1.." + std::to_string(max_columns),
                          "unsupported column count");
  if (spec.distribution == Distribution::ties && (spec.levels < 2 || spec.levels > max_tie_levels))
    throw Error::argument("levels", std::to_string(spec.levels), "2.." + std::to_string(max_tie_levels),
                          "unsupported number of tie levels");
  if (spec.n > max_points)
    throw Error::argument("n", std::to_string(spec.n), "0.." + std::to_string(max_points),
                          "too many points for 32-bit ids");

  const auto d = static_cast<std::size_t>(spec.d);
  std::vector<float> values(spec.n * d);
  const std::uint64_t key = mix64(spec.seed);
  const auto blocks = static_cast<std::int64_t>((spec.n + block_points - 1) / block_points);
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const auto block = static_cast<std::size_t>(b);
    const std::size_t first = block * block_points;
    fill_block(spec, key, block, values.data() + first * d, std::min(block_points, spec.n - first));
  }

  return Dataset(spec.n, spec.d, values, {},
                 "generated " + distribution_label(spec) + " n=" + std::to_string(spec.n) +
                     " d=" + std::to_string(spec.d) + " seed=" + std::to_string(spec.seed));
}

GeneratorSpec parse_distribution(const char* parameter, std::string_view text) {
  GeneratorSpec spec;
  parse_distribution_into(parameter, text, text, valid_distributions, spec);
  return spec;
}

GeneratorSpec parse_generate_spec(const char* parameter, std::string_view text) {
  const std::string valid = "DIST:N:D[:SEED] with DIST one of indep, corr, anti, ties, ties:Q (Q in 2.." +
                            std::to_string(max_tie_levels) + "), N in 0.." + std::to_string(max_points) +
                            ", D in 1.." + std::to_string(max_columns) + ", SEED an unsigned 64-bit integer";
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t colon = text.find(':', pos);
    parts.push_back(text.substr(pos, colon == std::string_view::npos ? std::string_view::npos : colon - pos));
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }

  // "ties" takes its level count only in the 4- and 5-part forms: ties:Q:N:D[:SEED].
  const std::size_t dist_parts = parts[0] == "ties" && parts.size() >= 4 ? 2 : 1;
  const std::size_t rest = parts.size() - dist_parts;
  if (rest != 2 && rest != 3)
    throw Error::argument(parameter, text, valid, "wrong number of ':'-separated fields");

  GeneratorSpec spec;
  const std::size_t dist_length = dist_parts == 2 ? parts[0].size() + 1 + parts[1].size() : parts[0].size();
  parse_distribution_into(parameter, text, text.substr(0, dist_length), valid, spec);

  std::uint64_t n = 0;
  const std::string_view n_text = parts[dist_parts];
  if (!parse_unsigned(n_text, n) || n > max_points)
    throw Error::argument(
        parameter, text, valid,
        "N '" + std::string(n_text) + "' not an integer in 0.." + std::to_string(max_points));
  spec.n = static_cast<std::size_t>(n);

  std::uint64_t d = 0;
  const std::string_view d_text = parts[dist_parts + 1];
  if (!parse_unsigned(d_text, d) || d < 1 || d > static_cast<std::uint64_t>(max_columns))
    throw Error::argument(
        parameter, text, valid,
        "D '" + std::string(d_text) + "' not an integer in 1.." + std::to_string(max_columns));
  spec.d = static_cast<int>(d);

  if (rest == 3) {
    const std::string_view seed_text = parts[dist_parts + 2];
    if (!parse_unsigned(seed_text, spec.seed))
      throw Error::argument(parameter, text, valid,
                            "SEED '" + std::string(seed_text) + "' not an unsigned integer");
  }
  return spec;
}

}  // namespace sextant::datagen
