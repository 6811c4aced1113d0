// sextant generate-pubsub: the workload of paper 002 (Table 1 and the sweeps of section 4;
// datagen/pubsub_generator.hpp) as a subscriptions file and an events file, the inputs of
// `sextant match`, in the text format or the binary one.
#include <charconv>
#include <cstdio>
#include <ostream>
#include <string>

#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "datagen/pubsub_binary.hpp"
#include "datagen/pubsub_generator.hpp"
#include "datagen/pubsub_text.hpp"

namespace sextant::cli {

namespace {

// "3-5" or "4" into [lo, hi].
void parse_range(const Arguments& args, const char* name, std::uint64_t max, std::uint64_t& lo,
                 std::uint64_t& hi) {
  const auto text = args.get(name);
  if (!text) return;
  const std::string option = std::string("--") + name;
  const std::string valid = "N or MIN-MAX with 0 <= MIN <= MAX <= " + std::to_string(max);
  const auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v > max)
      throw Error::argument(option, *text, valid, "not a count");
    return v;
  };
  const std::size_t dash = text->find('-');
  lo = number(std::string_view(*text).substr(0, dash));
  hi = dash == std::string::npos ? lo : number(std::string_view(*text).substr(dash + 1));
  if (lo > hi) throw Error::argument(option, *text, valid, "MIN > MAX");
}

double parse_real(const Arguments& args, const char* name, double fallback) {
  const auto text = args.get(name);
  if (!text) return fallback;
  double v = 0;
  const auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{} || p != text->data() + text->size())
    throw Error::argument(std::string("--") + name, *text, "a number", "not a number");
  return v;
}

bool binary_format(const Arguments& args, const std::string& path) {
  const std::string format = args.get_or("format", "");
  if (format == "binary") return true;
  if (format == "text") return false;
  if (!format.empty()) throw Error::argument("--format", format, "text or binary", "unknown format");
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".bin") == 0;
}

}  // namespace

int generate_pubsub_command(int argc, char** argv) {
  Arguments args(
      "generate-pubsub",
      {
          {"subscriptions", "F", "where to write the filters ('-' = stdout, text only)"},
          {"events", "F", "where to write the events ('-' = stdout, text only)"},
          {"format", "text|binary", "file format (default: binary for names ending in .bin, else text)"},
          {"event-count", "N", "events (default 1000)"},
          {"attributes", "MIN-MAX", "attributes per event (default 3-5)"},
          {"interfaces", "N", "interfaces (default 10)"},
          {"constraints", "MIN-MAX", "constraints per filter (default 3-5)"},
          {"filters", "MIN-MAX", "filters per interface (default 22500-27500)"},
          {"total-constraints", "C", "about C constraints in all: sets --filters to the mean +-10%"},
          {"names", "N", "attribute names (default 100)"},
          {"zipf", "THETA", "Zipf-distributed names (default 0: uniform)"},
          {"numeric-share", "P",
           "share of the names that hold numbers, 0 .. 1 (default 1; the rest strings)"},
          {"values", "V", "values per name (default 100)"},
          {"ops", "SPEC", "numeric operators and weights (default =:25,!=:25,<:25,>:25)"},
          {"string-ops", "SPEC", "string operators and weights (default =:25,!=:25,prefix:25,suffix:25)"},
          {"seed", "S", "random seed (default 1)"},
          {"help", "", "this text"},
      });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const std::string subscriptions = args.require("subscriptions");
  const std::string events_path = args.require("events");
  datagen::PubSubSpec spec;
  spec.events = static_cast<std::uint64_t>(args.get_int("event-count", 1000, 0, 1LL << 36));
  std::uint64_t lo = spec.min_attributes, hi = spec.max_attributes;
  parse_range(args, "attributes", 1u << 24, lo, hi);
  spec.min_attributes = static_cast<std::uint32_t>(lo);
  spec.max_attributes = static_cast<std::uint32_t>(hi);
  spec.interfaces = static_cast<std::uint32_t>(args.get_int("interfaces", 10, 1, 1 << 20));
  lo = spec.min_constraints;
  hi = spec.max_constraints;
  parse_range(args, "constraints", 1u << 24, lo, hi);
  spec.min_constraints = static_cast<std::uint32_t>(lo);
  spec.max_constraints = static_cast<std::uint32_t>(hi);
  parse_range(args, "filters", std::uint64_t{1} << 32, spec.min_filters, spec.max_filters);
  spec.names = static_cast<std::uint32_t>(args.get_int("names", 100, 1, 1 << 24));
  spec.zipf = parse_real(args, "zipf", 0);
  spec.numeric_share = parse_real(args, "numeric-share", 1);
  spec.values = static_cast<std::uint32_t>(args.get_int("values", 100, 1, 1 << 30));
  if (const auto ops = args.get("ops"))
    spec.numeric_ops = datagen::parse_op_mix("--ops", *ops, matching::ValueType::int64);
  if (const auto ops = args.get("string-ops"))
    spec.string_ops = datagen::parse_op_mix("--string-ops", *ops, matching::ValueType::string);
  spec.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 0x7FFFFFFFFFFFFFFFLL));
  if (args.has("total-constraints"))
    spec.set_total_constraints(
        static_cast<std::uint64_t>(args.get_int("total-constraints", 0, 1, 1LL << 36)));
  spec.validate();

  const bool binary_subscriptions = binary_format(args, subscriptions);
  const bool binary_events = binary_format(args, events_path);
  if ((binary_subscriptions && subscriptions == "-") || (binary_events && events_path == "-"))
    throw Error::argument("--format", "binary", "a file name", "binary output needs a file");

  Stopwatch sw;
  enter_phase("generating the filters");
  const matching::FilterSet filters = datagen::generate_filters(spec);
  enter_phase("generating the events");
  const matching::EventBatch events = datagen::generate_events(spec);
  write_output(
      subscriptions,
      [&](std::ostream& out) {
        if (binary_subscriptions)
          datagen::write_filters_binary(out, filters);
        else
          datagen::write_filters_text(out, filters);
      },
      binary_subscriptions);
  write_output(
      events_path,
      [&](std::ostream& out) {
        if (binary_events)
          datagen::write_events_binary(out, events);
        else
          datagen::write_events_text(out, events);
      },
      binary_events);
  std::fprintf(stderr, "sextant generate-pubsub: %s: %zu filters (%zu constraints), %zu events (%.2f s)\n",
               spec.describe().c_str(), filters.size(), filters.constraints(), events.size(), sw.seconds());
  return 0;
}

}  // namespace sextant::cli
