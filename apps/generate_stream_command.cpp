// sextant generate-stream: an out-of-order keyed stream as CSV key,ts,value,wm
// (datagen/stream_generator.hpp), the input of `sextant window --input`.
#include <cstdio>
#include <string>

#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "apps/stream_options.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "datagen/stream_generator.hpp"

namespace sextant::cli {

int generate_stream_command(int argc, char** argv) {
  std::vector<Arguments::Option> options = {
      {"n", "N", "number of tuples"},
      {"value-type", "int32|float",
       "the value column: the tuple's first int32 or first float (default int32)"},
  };
  for (auto& o : stream_generator_options()) options.push_back(std::move(o));
  options.push_back({"output", "F", "the stream CSV to write ('-' = stdout)"});
  options.push_back({"help", "", "this text"});
  Arguments args("generate-stream", std::move(options));
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const auto n = static_cast<std::uint64_t>(args.get_int("n", 0, 0, 1LL << 40));
  if (!args.has("n")) args.require("n");
  const std::string type = args.get_or("value-type", "int32");
  if (type != "int32" && type != "float")
    throw Error::argument("--value-type", type, "int32 or float", "the tuple holds int32 and float values");
  const datagen::StreamField field =
      type == "int32" ? datagen::StreamField::int_value : datagen::StreamField::float_value;
  const datagen::StreamGeneratorSpec spec = parse_stream_generator(args, n);
  const std::string output = args.require("output");
  Stopwatch sw;
  write_output(output, [&](std::ostream& out) { datagen::write_stream_csv(out, spec, field); });
  std::fprintf(stderr, "sextant generate-stream: %s value=%s -> %s (%.2f s)\n", spec.describe().c_str(),
               type.c_str(), output.c_str(), sw.seconds());
  return 0;
}

}  // namespace sextant::cli
