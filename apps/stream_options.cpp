#include "apps/stream_options.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/number_format.hpp"

namespace sextant::cli {

namespace {

constexpr const char* generator_option_names[] = {
    "keys", "zipf", "rate", "delay", "delay-dist", "watermark-bound", "seed"};

}  // namespace

std::vector<Arguments::Option> stream_generator_options() {
  return {
      {"keys", "K", "generated stream: keys 0..K-1 (default 1)"},
      {"zipf", "THETA", "generated stream: Zipf-distributed keys, e.g. 0.9 (default 0: uniform)"},
      {"rate", "R", "generated stream: tuples per time unit (default 1)"},
      {"delay", "D", "generated stream: average delay in time units (default 0: in order)"},
      {"delay-dist", "uniform|exp",
       "generated stream: delays uniform on [0, 2D] or exponential (default uniform)"},
      {"watermark-bound", "B",
       "generated stream: watermark = max timestamp - B (default 2D uniform, 10D exp: nothing or ~5e-5 "
       "late)"},
      {"seed", "S", "generated stream: random seed (default 1)"},
  };
}

double get_number(const Arguments& args, const char* name, double fallback, double min, double max) {
  const auto text = args.get(name);
  if (!text) return fallback;
  double v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{} || end != text->data() + text->size() || !std::isfinite(v) || v < min || v > max)
    throw Error::argument(std::string("--") + name, *text,
                          "a number in " + format_number(min) + " .. " + format_number(max), "out of range");
  return v;
}

datagen::StreamGeneratorSpec parse_stream_generator(const Arguments& args, std::uint64_t n) {
  datagen::StreamGeneratorSpec spec;
  spec.n = n;
  spec.keys = static_cast<std::uint32_t>(args.get_int("keys", 1, 1, 4294967295LL));
  spec.zipf = get_number(args, "zipf", 0, 0, 10);
  if (spec.zipf > 0 && spec.keys > datagen::StreamGeneratorSpec::max_zipf_keys)
    throw Error::argument(
        "--keys", std::to_string(spec.keys),
        "1 .. " + std::to_string(datagen::StreamGeneratorSpec::max_zipf_keys) + " with --zipf",
        "too many keys for the Zipf table");
  spec.rate = get_number(args, "rate", 1, 1e-9, 1e12);
  if (static_cast<double>(n) / spec.rate > 0x1.0p53)
    throw Error::argument("--rate", format_number(spec.rate), "a rate with N / rate <= 2^53",
                          "the stream is too long");
  spec.delay = get_number(args, "delay", 0, 0, datagen::StreamGeneratorSpec::max_delay);
  spec.delay_distribution =
      datagen::parse_delay_distribution("--delay-dist", args.get_or("delay-dist", "uniform"));
  spec.watermark_bound = args.get_int("watermark-bound", -1, 0, 1LL << 62);
  spec.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1LL << 62));
  spec.validate();
  return spec;
}

void reject_stream_generator_options(const Arguments& args, const char* instead) {
  for (const char* name : generator_option_names)
    if (const auto v = args.get(name))
      throw Error::argument(std::string("--") + name, *v, "only with --generate",
                            std::string("not used ") + instead);
}

}  // namespace sextant::cli
