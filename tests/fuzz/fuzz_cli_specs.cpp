// Fuzz target: the CLI's argument and spec parsers. The first byte picks the parser, the rest
// is the text: --generate DIST:N:D[:SEED], --prefer, --subspace, window --length/--slide lists,
// --devices, --counters, the enum options (--template, --type, --value-type, --agg,
// --algorithm), or a whole argument vector ('\0'-separated) for the options parser with the
// stream generator's options.
#include <string>
#include <vector>

#include "api/skycube.hpp"
#include "apps/stream_options.hpp"
#include "apps/window_parameters.hpp"
#include "cli/arguments.hpp"
#include "core/dataset.hpp"
#include "core/device.hpp"
#include "core/subspace.hpp"
#include "datagen/skyline_generator.hpp"
#include "fuzz_support.hpp"
#include "scheduler/counters.hpp"
#include "templates/window/count_window.hpp"
#include "templates/window/count_window_hooks.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_spec.hpp"

namespace {

using namespace sextant;

void parse_argument_vector(std::string_view text, std::uint8_t selector) {
  std::vector<std::string> tokens{"sextant", "window"};
  std::size_t pos = 0;
  while (pos <= text.size() && tokens.size() < 64) {
    const std::size_t end = std::min(text.find('\0', pos), text.size());
    tokens.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  std::vector<char*> argv;
  for (std::string& t : tokens) argv.push_back(t.data());
  std::vector<cli::Arguments::Option> options = cli::stream_generator_options();
  options.push_back({"length", "W", "lengths"});
  options.push_back({"slide", "S", "slides"});
  options.push_back({"batch", "B", "batch"});
  options.push_back({"inplace", "", "a flag"});
  cli::Arguments args("window", options);
  args.parse(static_cast<int>(argv.size()), argv.data(), 2);
  if (args.has("length")) (void)cli::parse_window_parameters("--length", args.require("length"));
  if (args.has("slide")) (void)cli::parse_window_parameters("--slide", args.require("slide"));
  (void)args.get_int("batch", 1, 1, 1LL << 32);
  (void)cli::parse_stream_generator(args, selector);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes bytes(data, size);
  const std::uint8_t selector = bytes.take();
  const std::string text(bytes.rest());
  const int d = 1 + (selector >> 4) % max_columns;
  fuzz::expect_only_sextant_errors([&] {
    switch (selector % 12) {
      case 0: {
        const datagen::GeneratorSpec spec = datagen::parse_generate_spec("--generate", text);
        (void)spec;
        break;
      }
      case 1: {
        const auto prefs = parse_preferences("--prefer", text, d);
        if (prefs.size() != static_cast<std::size_t>(d)) std::abort();
        break;
      }
      case 2: {
        const Mask m = parse_column_list("--subspace", text, d);
        if (m == 0 || (d < 32 && (m >> d) != 0)) std::abort();
        break;
      }
      case 3:
        for (const std::int64_t v : cli::parse_window_parameters("--length", text))
          if (v < 1 || v > window::WindowSpec::max_parameter) std::abort();
        break;
      case 4:
        (void)parse_devices("--devices", text);
        break;
      case 5:
        (void)scheduler::parse_counter_events("--counters", text);
        break;
      case 6:
        (void)skycube::parse_template("--template", text);
        break;
      case 7:
        (void)window::parse_window_type("--type", text);
        (void)window::parse_value_type("--value-type", text);
        break;
      case 8:
        (void)window::parse_stream_aggregate("--agg", text);
        (void)window::parse_aggregate("--agg", text);
        (void)window::parse_count_algorithm("--algorithm", text);
        break;
      case 9:
        (void)datagen::parse_distribution("--dist", text);
        break;
      default:
        parse_argument_vector(text, selector);
        break;
    }
  });
  return 0;
}
