// sextant pipeline run|profile|plan: the irregular streaming pipelines of paper 003 (docs/pipeline.md)
// on the four applications of apps/pipelines, on any mix of CPU cores and GPUs.
//   run      the sink's results (distinct BLAST hits, N-Queens solutions, Taxi's per-line aggregate,
//            the synthetic pipeline's items) to --output, a summary on stderr;
//   profile  per node: average gain g, max vector gain m, service time t, overhead p, node switches;
//   plan     the profile, the queue sizes of every sizing rule at the budget, the ranked merge plans.
#include <charconv>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "api/pipeline.hpp"
#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "apps/pipelines/blast.hpp"
#include "apps/pipelines/nqueens.hpp"
#include "apps/pipelines/synthetic.hpp"
#include "apps/pipelines/taxi.hpp"
#include "cli/arguments.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/stopwatch.hpp"
#include "datagen/input_file.hpp"
#include "scheduler/statistics.hpp"

namespace sextant::cli {

namespace {

using namespace sextant::pipeline;

// Options that belong to one application.
struct AppOption {
  const char* name;
  const char* app;
};
constexpr AppOption app_options[] = {
    {"db-length", "blast"},
    {"query-length", "blast"},
    {"copies", "blast"},
    {"copy-length", "blast"},
    {"mutation-rate", "blast"},
    {"word", "blast"},
    {"max-occurrences", "blast"},
    {"n", "nqueens"},
    {"input", "taxi"},
    {"lines", "taxi"},
    {"mean-pairs", "taxi"},
    {"max-pairs", "taxi"},
    {"max-line", "taxi"},
    {"sources", "synthetic"},
    {"gains", "synthetic"},
    {"limits", "synthetic"},
    {"work", "synthetic"},
};

template <class T>
std::vector<T> parse_list(const Arguments& args, std::string_view name, const std::vector<T>& fallback) {
  const auto text = args.get(name);
  if (!text) return fallback;
  std::vector<T> out;
  std::size_t pos = 0;
  while (pos <= text->size()) {
    std::size_t comma = text->find(',', pos);
    if (comma == std::string::npos) comma = text->size();
    T value{};
    const char* b = text->data() + pos;
    const char* e = text->data() + comma;
    const auto [ptr, ec] = std::from_chars(b, e, value);
    if (ec != std::errc{} || ptr != e || b == e)
      throw Error::argument("--" + std::string(name), *text, "comma-separated numbers", "not a number list");
    out.push_back(value);
    pos = comma + 1;
  }
  return out;
}

double parse_double(const Arguments& args, std::string_view name, double fallback, double lo, double hi) {
  const auto text = args.get(name);
  if (!text) return fallback;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || ptr != text->data() + text->size() || !(value >= lo && value <= hi))
    throw Error::argument("--" + std::string(name), *text, format_number(lo) + " .. " + format_number(hi));
  return value;
}

PipelineOptions pipeline_options(const Arguments& args) {
  PipelineOptions o;
  o.sizing = parse_sizing("--sizing", args.get_or("sizing", "sqrt"));
  o.queue_budget = static_cast<std::size_t>(args.get_int("queue-budget", 0, 0, std::int64_t{1} << 40));
  o.merge = args.get_or("merge", "none");
  o.ordered = args.has("order");
  o.collect = !args.has("count-only");
  if (const auto d = args.get("devices")) o.devices = parse_devices("--devices", *d);
  o.threads = static_cast<int>(args.get_int("threads", 0, 0, 1 << 20));
  o.cpu_lanes = static_cast<std::uint32_t>(args.get_int("lanes", 0, 0, 64));
  return o;
}

std::string describe_sizes(const std::vector<std::pair<std::string, QueueSizes>>& sizes) {
  std::string out;
  for (const auto& [device, s] : sizes)
    out += (out.empty() ? "" : "; ") + device + ": " + pipeline::describe_sizes(s);
  return out.empty() ? "no queues" : out;
}

template <class Out>
void summarise(const char* sub, const std::string& what, const PipelineResult<Out>& r, std::uint64_t shown,
               double prepare_seconds, bool report) {
  std::fprintf(stderr,
               "sextant pipeline %s: %s -> %llu items (%llu written); plan %s; %s; %llu vectors, %llu node "
               "switches; %s; prepare %.3f s, run %.3f s\n",
               sub, what.c_str(), static_cast<unsigned long long>(r.count),
               static_cast<unsigned long long>(shown), r.plan.to_string().c_str(),
               describe_sizes(r.sizes).c_str(), static_cast<unsigned long long>(r.counters.firings),
               static_cast<unsigned long long>(r.counters.switches), r.devices.c_str(), prepare_seconds,
               r.seconds);
  if (r.sample)
    std::fprintf(stderr, "sextant pipeline %s: gains measured on %llu sources first (%.3f s)\n", sub,
                 static_cast<unsigned long long>(r.sample->sources), r.sample->seconds);
  if (report && r.statistics) std::fprintf(stderr, "%s", scheduler::report(*r.statistics).c_str());
}

void write_count(const std::string& path, const char* what, std::uint64_t count) {
  write_output(path, [&](std::ostream& out) { out << what << ' ' << count << '\n'; });
}

std::string plan_text(const PipelinePlan& plan, const PipelineShape& shape) {
  std::string out = format_profile(plan.profile);
  out += "\n# queue sizes (items) at " + std::to_string(plan.sizes.empty() ? 0 : plan.sizes[0].budget) +
         " bytes per replica, unmerged, " + std::to_string(plan.profile.width) +
         " lanes; * = raised to the minimum safe size\n";
  out += "rule     ";
  for (const QueueSpec& q : plan.sizes.front().queues) {
    out += " q";
    append_number(out, q.after + 1);
    out += '(';
    append_number(out, q.item_bytes);
    out += "B)";
  }
  out += "  bytes  R'\n";
  for (const QueueSizes& s : plan.sizes) {
    char head[32];
    std::snprintf(head, sizeof head, "%-9s", std::string(to_string(s.rule)).c_str());
    out += head;
    for (std::size_t q = 0; q < s.queues.size(); ++q) {
      out += ' ';
      append_number(out, s.capacity[q]);
      if (s.inflated[q]) out += '*';
    }
    char tail[64];
    std::snprintf(tail, sizeof tail, "  %llu  %.4g\n", static_cast<unsigned long long>(s.bytes()),
                  switch_rate_bound(s.capacity, s.queues));
    out += tail;
  }
  (void)shape;
  out += "\n# merge strategies, cheapest predicted first (cost per input vector of node 1)\n";
  out += format_ranking(plan.ranking, plan.profile.time_unit, plan.ranking.size());
  return out;
}

// run / profile / plan of one instance; `write` writes run's results.
template <PipelineType P, class Write>
int execute(const std::string& sub, const Arguments& args, const Instance<P>& instance,
            const std::string& what, double prepare_seconds, Write&& write) {
  const PipelineOptions o = pipeline_options(args);
  const std::string output = args.require("output");
  if (sub == "run") {
    enter_phase("running the pipeline");
    const PipelineResult<typename P::Output> r = run_pipeline(instance, o);
    const std::uint64_t shown = write(output, r);
    summarise(sub.c_str(), what, r, shown, prepare_seconds, args.has("report"));
    return 0;
  }
  const bool csv = args.get_or("format", "text") == "csv";
  if (args.get_or("format", "text") != "text" && !csv)
    throw Error::argument("--format", *args.get("format"), "text or csv");
  if (sub == "profile") {
    enter_phase("profiling the pipeline");
    const PipelineProfile p = profile_pipeline(instance, o);
    write_output(output, [&](std::ostream& out) { out << (csv ? profile_csv(p) : format_profile(p)); });
    std::fprintf(stderr, "sextant pipeline profile: %s on %s: %llu node switches, %.3f s\n", what.c_str(),
                 p.device.c_str(), static_cast<unsigned long long>(p.switches), p.seconds);
    return 0;
  }
  enter_phase("planning the pipeline");
  const PipelinePlan plan = plan_pipeline(instance, o);
  write_output(output, [&](std::ostream& out) {
    if (csv) {
      out << profile_csv(plan.profile) << "\nrank,strategy,cost,min_queue_bytes,fits\n";
      for (std::size_t i = 0; i < plan.ranking.size(); ++i)
        out << i + 1 << ',' << plan.ranking[i].plan.to_string() << ',' << format_number(plan.ranking[i].cost)
            << ',' << plan.ranking[i].min_queue_bytes << ',' << (plan.ranking[i].fits ? "yes" : "no") << '\n';
    } else {
      out << plan_text(plan, shape_of<P>(instance.params));
    }
  });
  std::fprintf(stderr, "sextant pipeline plan: %s: best predicted plan %s (cost %.4g %s per input vector)\n",
               what.c_str(), plan.ranking.front().plan.to_string().c_str(), plan.ranking.front().cost,
               plan.profile.time_unit.c_str());
  return 0;
}

int blast(const std::string& sub, const Arguments& args) {
  Stopwatch sw;
  apps::blast::GeneratorConfig g;
  g.db_length = static_cast<std::uint32_t>(args.get_int("db-length", g.db_length, 64, std::int64_t{1} << 31));
  g.query_length = static_cast<std::uint32_t>(args.get_int("query-length", g.query_length, 64, 1 << 24));
  g.copies = static_cast<std::uint32_t>(args.get_int("copies", g.copies, 0, 1 << 24));
  g.copy_length = static_cast<std::uint32_t>(args.get_int("copy-length", g.copy_length, 1, 1 << 24));
  g.mutation_rate = parse_double(args, "mutation-rate", g.mutation_rate, 0, 1);
  g.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, std::int64_t{1} << 62));
  apps::blast::Settings s;
  s.k = static_cast<std::uint32_t>(args.get_int("word", s.k, 4, 14));
  s.max_occurrences = static_cast<std::uint32_t>(args.get_int("max-occurrences", s.max_occurrences, 1, 64));
  enter_phase("generating the database");
  const apps::blast::Problem p = apps::blast::generate(g, s);
  return execute<apps::blast::BlastPipeline>(
      sub, args, apps::blast::make_instance(p), "blast " + p.origin, sw.seconds(),
      [&](const std::string& path, const auto& r) -> std::uint64_t {
        if (args.has("count-only")) {
          write_count(path, "hits", r.count);
          return 0;
        }
        const std::vector<apps::blast::Hit> hits = apps::blast::report_hits(r.items);
        write_output(path, [&](std::ostream& out) {
          std::string buf = "db_begin,query_begin,length,score\n";
          for (const auto& h : hits) {
            append_number(buf, h.db_begin);
            buf += ',';
            append_number(buf, h.query_begin);
            buf += ',';
            append_number(buf, h.length);
            buf += ',';
            append_number(buf, h.score);
            buf += '\n';
          }
          out << buf;
        });
        return hits.size();
      });
}

int nqueens(const std::string& sub, const Arguments& args) {
  Stopwatch sw;
  if (!args.has("n")) args.require("n");
  const auto n = static_cast<std::uint32_t>(args.get_int("n", 8, 1, apps::nqueens::max_n));
  const apps::nqueens::Problem p = apps::nqueens::make_problem(n);
  return execute<apps::nqueens::NQueensPipeline>(
      sub, args, apps::nqueens::make_instance(p),
      "nqueens n=" + std::to_string(n) + " (" + std::to_string(p.boards.size()) + " boards of " +
          std::to_string(p.params.first_row) + " rows placed on the host)",
      sw.seconds(), [&](const std::string& path, const auto& r) -> std::uint64_t {
        if (args.has("count-only")) {
          write_count(path, "solutions", r.count);
          return 0;
        }
        write_output(path, [&](std::ostream& out) {
          std::string buf;
          for (const auto& b : r.items) {
            buf += apps::nqueens::format_board(b, n);
            buf += '\n';
            if (buf.size() > (1 << 20)) {
              out << buf;
              buf.clear();
            }
          }
          out << buf;
        });
        return r.items.size();
      });
}

int taxi(const std::string& sub, const Arguments& args) {
  Stopwatch sw;
  const bool from_file = args.has("input");
  if (from_file == args.has("lines"))
    throw Error::argument("--input/--lines", from_file ? "both" : "neither", "exactly one of them",
                          "name the input");
  const auto max_line = static_cast<std::uint32_t>(args.get_int("max-line", 4096, 16, 1 << 20));
  std::string text, origin;
  if (from_file) {
    for (const char* g : {"mean-pairs", "max-pairs", "seed"})
      if (args.has(g))
        throw Error::argument(std::string("--") + g, *args.get(g), "only with --lines",
                              "not used with --input");
    enter_phase("reading the input");
    origin = *args.get("input");
    datagen::InputFile file(origin);
    text = datagen::read_text(file);
  } else {
    apps::taxi::GeneratorConfig g;
    g.lines = static_cast<std::uint32_t>(args.get_int("lines", 1, 0, 1 << 30));
    g.mean_pairs = static_cast<std::uint32_t>(args.get_int("mean-pairs", g.mean_pairs, 2, 170));
    g.max_pairs = static_cast<std::uint32_t>(args.get_int("max-pairs", g.max_pairs, 2, 170));
    g.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, std::int64_t{1} << 62));
    enter_phase("generating the input");
    text = apps::taxi::generate_text(g);
    origin = "generated lines=" + std::to_string(g.lines) + " seed=" + std::to_string(g.seed);
  }
  const apps::taxi::Problem p = apps::taxi::parse_lines(std::move(text), origin, max_line);
  return execute<apps::taxi::TaxiPipeline>(
      sub, args, apps::taxi::make_instance(p),
      "taxi " + p.origin + " (" + std::to_string(p.body_begin.size()) + " lines)", sw.seconds(),
      [&](const std::string& path, const auto& r) -> std::uint64_t {
        if (args.has("count-only"))
          throw Error::argument("--count-only", "", "run without it",
                                "taxi needs every pair for its per-line aggregate");
        const std::vector<apps::taxi::LineAggregate> lines =
            apps::taxi::aggregate(p, r.items);  // reports bad pairs
        write_output(path, [&](std::ostream& out) {
          std::string buf = "line,pairs,min_x,min_y,max_x,max_y\n";
          for (const auto& a : lines) {
            append_number(buf, a.line + 1);
            buf += ',';
            append_number(buf, a.pairs);
            for (const float v : {a.min_x, a.min_y, a.max_x, a.max_y}) {
              buf += ',';
              append_number(buf, v);
            }
            buf += '\n';
            if (buf.size() > (1 << 20)) {
              out << buf;
              buf.clear();
            }
          }
          out << buf;
        });
        return lines.size();
      });
}

int synthetic(const std::string& sub, const Arguments& args) {
  Stopwatch sw;
  apps::synthetic::Config c;
  if (!args.has("sources")) args.require("sources");
  c.sources = static_cast<std::uint64_t>(args.get_int("sources", 0, 0, std::int64_t{1} << 40));
  c.gains = parse_list<double>(args, "gains", c.gains);
  c.limits = parse_list<std::uint32_t>(args, "limits", c.limits);
  c.work = parse_list<std::uint32_t>(args, "work", c.work);
  c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, std::int64_t{1} << 62));
  return execute<apps::synthetic::SyntheticPipeline>(
      sub, args, apps::synthetic::make_instance(c), "synthetic " + apps::synthetic::describe(c), sw.seconds(),
      [&](const std::string& path, const auto& r) -> std::uint64_t {
        if (args.has("count-only")) {
          write_count(path, "items", r.count);
          return 0;
        }
        write_output(path, [&](std::ostream& out) {
          std::string buf;
          for (const std::uint64_t v : r.items) {
            append_number(buf, v);
            buf += '\n';
            if (buf.size() > (1 << 20)) {
              out << buf;
              buf.clear();
            }
          }
          out << buf;
        });
        return r.items.size();
      });
}

}  // namespace

int pipeline_command(int argc, char** argv) {
  Arguments args(
      "pipeline",
      {
          {"app", "blast|nqueens|taxi|synthetic", "the application"},
          {"sizing", "equal|mercator|sqrt",
           "queue sizing rule (default sqrt: Lemma 5.2 on gains measured first)"},
          {"queue-budget", "BYTES",
           "queue bytes per replica (default: 65536; mercator: 4 x lanes x largest gain limit)"},
          {"merge", "auto|none|PLAN",
           "merged nodes, e.g. \"1,2+3,4\" (1-based; default none; auto: the merge model)"},
          {"devices", "all|cpu|numaN,...|gpuN,...", "where to run (default cpu)"},
          {"threads", "T", "CPU cores at most (default all of the selection)"},
          {"lanes", "8|16", "CPU vector width (default 16 with AVX-512, else 8)"},
          {"order", "", "results in input order (source index, then emission order)"},
          {"count-only", "", "count the sink's items instead of writing them"},
          {"format", "text|csv", "profile and plan output (default text)"},
          {"report", "", "print the per-device table of the run on stderr"},
          {"output", "F", "where the results go ('-' = stdout)"},
          {"seed", "S", "generators' seed (blast, taxi --lines, synthetic; default 1)"},
          {"db-length", "N", "blast: database bases (default 4194304)"},
          {"query-length", "N", "blast: query bases (default 16384)"},
          {"copies", "C", "blast: mutated query stretches planted in the database (default 64)"},
          {"copy-length", "L", "blast: bases per planted stretch (default 600)"},
          {"mutation-rate", "R", "blast: substitution rate of the planted copies (default 0.05)"},
          {"word", "K", "blast: word length 4 .. 14 (default 8)"},
          {"max-occurrences", "M", "blast: words more frequent in the query are masked (default 16)"},
          {"n", "N", "nqueens: board size 1 .. 20"},
          {"input", "F", "taxi: lines <id>,LINESTRING(<x> <y>, ...)"},
          {"lines", "N", "taxi: generate N lines instead"},
          {"mean-pairs", "M", "taxi --lines: mean pairs per line (default 45)"},
          {"max-pairs", "M", "taxi --lines: most pairs per line, at most 170 (default 150)"},
          {"max-line", "B", "taxi: longest line in bytes (default 4096; sets node 1's gain limit)"},
          {"sources", "N", "synthetic: inputs 0 .. N-1"},
          {"gains", "G1,G2,G3,G4", "synthetic: average gain per node (default 0.5,2,0.25,1)"},
          {"limits", "U1,U2,U3,U4", "synthetic: gain limit per node (default 1,4,1,1)"},
          {"work", "W1,W2,W3,W4", "synthetic: mixing rounds per input per node (default 16,32,8,64)"},
          {"help", "", "this text"},
      });
  const std::string sub = argc >= 3 ? argv[2] : "";
  if (sub == "--help" || sub == "-h") {
    std::fputs(("usage: sextant pipeline run|profile|plan --app APP [options]\n" + args.usage()).c_str(),
               stdout);
    return 0;
  }
  if (sub != "run" && sub != "profile" && sub != "plan")
    throw Error::argument("pipeline", sub.empty() ? "(none)" : sub, "run, profile or plan",
                          "unknown subcommand");
  args.parse(argc, argv, 3);
  if (args.has("help")) {
    std::fputs(("usage: sextant pipeline run|profile|plan --app APP [options]\n" + args.usage()).c_str(),
               stdout);
    return 0;
  }
  const std::string app = args.require("app");
  if (app != "blast" && app != "nqueens" && app != "taxi" && app != "synthetic")
    throw Error::argument("--app", app, "blast, nqueens, taxi or synthetic", "unknown application");
  for (const AppOption& o : app_options)
    if (args.has(o.name) && app != o.app)
      throw Error::argument(std::string("--") + o.name, *args.get(o.name),
                            std::string("only with --app ") + o.app, "not an option of --app " + app);
  if (args.has("seed") && app == "nqueens")
    throw Error::argument("--seed", *args.get("seed"), "blast, taxi or synthetic", "not used by nqueens");
  if (app == "blast") return blast(sub, args);
  if (app == "nqueens") return nqueens(sub, args);
  if (app == "taxi") return taxi(sub, args);
  return synthetic(sub, args);
}

}  // namespace sextant::cli
