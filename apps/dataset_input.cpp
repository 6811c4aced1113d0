#include "apps/dataset_input.hpp"

#include <utility>

#include "apps/output.hpp"
#include "core/error.hpp"
#include "datagen/binary.hpp"
#include "datagen/skyline_generator.hpp"

namespace sextant::cli {

Dataset load_dataset(const Arguments& args, PhaseTimes& phases) {
  const bool from_file = args.has("input");
  const bool generated = args.has("generate");
  if (from_file == generated)
    throw Error::argument("--input/--generate", from_file ? "both" : "neither", "exactly one of them",
                          "name the input");
  enter_phase(from_file ? "loading the input" : "generating the input");
  Stopwatch sw;
  Dataset data = from_file
                     ? datagen::read_dataset(*args.get("input"))
                     : datagen::generate(datagen::parse_generate_spec("--generate", *args.get("generate")));
  if (const auto prefer = args.get("prefer")) {
    // Files and generators give all-min datasets; re-apply with the requested preferences.
    auto prefs = parse_preferences("--prefer", *prefer, data.dims());
    data = Dataset(data.size(), data.dims(), data.values(), std::move(prefs), data.origin());
  }
  phases.add(from_file ? "load" : "generate", sw.seconds());
  return data;
}

}  // namespace sextant::cli
