// sextant match: content-based matching of events against subscriptions (paper 002) on the CPU's
// cores, GPUs or all of them (api/matcher.hpp). Output: CSV, one row per event in input order,
// `event,interfaces[,filters]` with the ids of each list sorted and separated by spaces.
#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "api/matcher.hpp"
#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/ordered_text.hpp"
#include "core/stopwatch.hpp"
#include "datagen/pubsub_text.hpp"
#include "scheduler/statistics.hpp"
#include "templates/matching/matching_policy.hpp"

namespace sextant::cli {

namespace {

void append_row(std::string& out, const matching::MatchResults& r, std::size_t i) {
  append_number(out, r.events[i]);
  out += ',';
  bool first = true;
  for (const matching::InterfaceId id : r.interfaces_of(i)) {
    if (!first) out += ' ';
    append_number(out, id);
    first = false;
  }
  if (r.has_filters) {
    out += ',';
    first = true;
    for (const matching::FilterId id : r.filters_of(i)) {
      if (!first) out += ' ';
      append_number(out, id);
      first = false;
    }
  }
  out += '\n';
}

void write_results(std::ostream& out, const matching::MatchResults& r, TeamRef team) {
  out << (r.has_filters ? "event,interfaces,filters\n" : "event,interfaces\n");
  write_in_order(
      out, r.size(), text_block_rows, team,
      [&r](std::size_t begin, std::size_t end, std::string& text) {
        for (std::size_t i = begin; i < end; ++i) append_row(text, r, i);
      },
      "writing the matches");
}

matching::Placement parse_placement(const std::string& text) {
  if (text == "replicate") return matching::Placement::replicate;
  if (text == "partition") return matching::Placement::partition;
  throw Error::argument("--placement", text, "replicate or partition", "unknown placement");
}

}  // namespace

int match_command(int argc, char** argv) {
  Arguments args(
      "match",
      {
          {"subscriptions", "F", "the filters: text (filter <id> <interface>: ...) or Sextant binary"},
          {"events", "F", "the events: text (event [<id>]: name = value, ...) or Sextant binary"},
          {"devices", "LIST",
           "all|cpu|gpu0,gpu1|numa0,...: match on these devices (default: cpu, every core)"},
          {"threads", "T", "CPU cores that match (default: every selected core)"},
          {"batch", "B",
           "events per batch (default " + std::to_string(matching::policy::Batches::default_events) +
               "); 1: one event at a time on the calling thread (latency mode)"},
          {"placement", "replicate|partition",
           "GPUs: every GPU holds all filters (replicate, default) or a share of them (partition: tables "
           "larger than one GPU; every batch goes to every GPU)"},
          {"filters", "", "also write the ids of every matched filter (a third column)"},
          {"report", "", "print the per-device table (workers, batches' event ranges, busy time) on stderr"},
          {"output", "F", "the matches as CSV ('-' = stdout)"},
          {"help", "", "this text"},
      });
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const std::string subscriptions = args.require("subscriptions");
  const std::string events_path = args.require("events");
  const std::string output = args.require("output");
  matching::MatcherOptions options;
  if (const auto devices = args.get("devices")) options.devices = parse_devices("--devices", *devices);
  options.threads = static_cast<int>(args.get_int("threads", 0, 1, 4096));
  options.placement = parse_placement(args.get_or("placement", "replicate"));
  const auto batch = static_cast<std::size_t>(
      args.get_int("batch", static_cast<long long>(matching::policy::Batches::default_events), 1, 1LL << 30));
  const bool with_filters = args.has("filters");

  PhaseTimes phases;
  enter_phase("loading the subscriptions");
  Stopwatch sw;
  const matching::FilterSet filters = datagen::read_filters(subscriptions);
  phases.add("load subscriptions", sw.seconds());
  sw.restart();
  enter_phase("loading the events");
  const matching::EventBatch events = datagen::read_events(events_path);
  phases.add("load events", sw.seconds());

  enter_phase("building the tables");
  sw.restart();
  matching::Matcher matcher(options);
  matcher.add(filters);
  const std::size_t constraints = matcher.constraints();  // applies the change: the build is timed here
  phases.add("build", sw.seconds());

  enter_phase("matching");
  matching::MatchResults results;
  results.has_filters = with_filters;
  std::vector<double> latencies;  // seconds per event (one at a time) or per batch
  sw.restart();
  if (batch == 1) {
    latencies.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
      Stopwatch one;
      matcher.match_one(events, i, with_filters, results);
      latencies.push_back(one.seconds());
    }
  } else {
    for (std::size_t begin = 0; begin < events.size(); begin += batch) {
      Stopwatch one;
      matcher.match(events, begin, std::min(events.size(), begin + batch), with_filters, results);
      latencies.push_back(one.seconds());
    }
  }
  const double matching_seconds = sw.seconds();
  phases.add("match", matching_seconds);

  sw.restart();
  cpu::OmpTeam text_team = output_team(options.threads);
  write_output(output, [&](std::ostream& out) { write_results(out, results, text_team); });
  phases.add("write", sw.seconds());

  std::sort(latencies.begin(), latencies.end());
  const auto quantile = [&](double q) {
    return latencies.empty()
               ? 0.0
               : latencies[static_cast<std::size_t>(q * static_cast<double>(latencies.size() - 1))];
  };
  const double n = static_cast<double>(std::max<std::size_t>(events.size(), 1));
  std::fprintf(stderr, "sextant match: %zu events against %zu filters (%zu constraints) on %s\n",
               events.size(), filters.size(), constraints, matcher.describe().c_str());
  if (batch == 1)
    std::fprintf(stderr,
                 "sextant match: one event at a time: %.0f events/s, latency mean %.4f ms, median %.4f ms, "
                 "p99 %.4f ms\n",
                 matching_seconds > 0 ? n / matching_seconds : 0.0, 1e3 * matching_seconds / n,
                 1e3 * quantile(0.5), 1e3 * quantile(0.99));
  else
    std::fprintf(stderr,
                 "sextant match: batches of %zu: %.0f events/s, %.4f ms per event, median batch %.3f ms\n",
                 batch, matching_seconds > 0 ? n / matching_seconds : 0.0, 1e3 * matching_seconds / n,
                 1e3 * quantile(0.5));
  std::fprintf(stderr, "sextant match: %s\n", format_phases(phases).c_str());
  if (args.has("report"))
    std::fprintf(stderr, "sextant match: per-device report\n%s",
                 scheduler::report(matcher.statistics()).c_str());
  return 0;
}

}  // namespace sextant::cli
