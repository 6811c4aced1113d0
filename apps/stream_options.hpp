// The options of a generated stream (datagen/stream_generator.hpp), shared by
// `sextant window --generate N` and `sextant generate-stream`.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/arguments.hpp"
#include "datagen/stream_generator.hpp"

namespace sextant::cli {

// --keys, --zipf, --rate, --delay, --delay-dist, --watermark-bound, --seed.
std::vector<Arguments::Option> stream_generator_options();

// The spec of n tuples from those options; throws Error::argument naming the option and its range.
datagen::StreamGeneratorSpec parse_stream_generator(const Arguments& args, std::uint64_t n);

// Throws when one of those options is given although no stream is generated.
void reject_stream_generator_options(const Arguments& args, const char* instead);

// A non-negative number option within [min, max] (fallback when absent).
double get_number(const Arguments& args, const char* name, double fallback, double min, double max);

}  // namespace sextant::cli
