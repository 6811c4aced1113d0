// The experiments of paper 003 (Section 7) for Sextant's pipelines, on the CPU's cores or a GPU:
//
//   pipeline_bench [--experiment sizing|merge|fused|devices|all] [--app blast|taxi|nqueens|synthetic|all]
//                  [--device cpu|gpu0|all] [--scale S] [--budgets B1,B2,...] [--repeats R] [--csv F]
//
//   sizing   node switches and run time against the queue budget per replica, for the equal,
//            Mercator (the same items per queue) and sqrt (Lemma 5.2) rules, unmerged, plus
//            Mercator's default sizes (scale 4, budget-free)                     (figures 5-10)
//   merge    predicted cost (the merge model on a profile taken unmerged at the budget) against the
//            measured time of every merge strategy (BLAST, Taxi, synthetic: all; N-Queens: the model's
//            best eight and the paper's four)                                    (tables 2-3)
//   fused    throughput of the queue-free kernel (every node merged: one lane runs an input through
//            the whole pipeline), of Mercator's default sizing unmerged, and of the best plan
//   devices  the best plan on cpu, gpu0 and all devices together
//
// Inputs are generated (apps/pipelines); --scale multiplies their sizes (1 = about a second per run
// on two cores). Runs count the sink's items without keeping them (--count-only), unordered. Times
// are the median of --repeats runs (the run alone: planning and the scheduler's start are left out).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/pipeline.hpp"
#include "apps/pipelines/blast.hpp"
#include "apps/pipelines/nqueens.hpp"
#include "apps/pipelines/synthetic.hpp"
#include "apps/pipelines/taxi.hpp"
#include "cli/arguments.hpp"
#include "core/atomic_file.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"

namespace {

using namespace sextant;
using namespace sextant::pipeline;

struct Measure {
  double seconds = 0;  // median
  std::uint64_t switches = 0;
  std::uint64_t vectors = 0;
  std::uint64_t items = 0;
  std::uint64_t queue_bytes = 0;
  std::string sizes;
};

// One application, type-erased for the experiments.
struct App {
  std::string name;
  std::uint64_t sources = 0;
  std::size_t nodes = 0;
  std::vector<std::size_t> budgets;
  std::function<Measure(const PipelineOptions&, int repeats)> run;
  std::function<PipelineProfile(const PipelineOptions&)> profile;
  std::function<PipelinePlan(const PipelineOptions&)> plan;
};

template <PipelineType P>
App make_app(std::string name, Instance<P> instance, std::vector<std::size_t> budgets) {
  App a;
  a.name = std::move(name);
  a.sources = instance.sources.count;
  a.nodes = P::size;
  a.budgets = std::move(budgets);
  a.run = [instance](const PipelineOptions& o, int repeats) {
    std::vector<double> times;
    Measure m;
    for (int r = 0; r < repeats; ++r) {
      const PipelineResult<typename P::Output> result = run_pipeline(instance, o);
      times.push_back(result.seconds);
      m.switches = result.counters.switches;
      m.vectors = result.counters.firings;
      m.items = result.count;
      m.queue_bytes = result.sizes.empty() ? 0 : result.sizes.back().second.bytes();
      m.sizes.clear();
      for (const auto& [device, s] : result.sizes)
        m.sizes += (m.sizes.empty() ? "" : "; ") + device + " " + describe_sizes(s);
    }
    std::sort(times.begin(), times.end());
    m.seconds = times[times.size() / 2];
    return m;
  };
  a.profile = [instance](const PipelineOptions& o) { return profile_pipeline(instance, o); };
  a.plan = [instance](const PipelineOptions& o) { return plan_pipeline(instance, o); };
  return a;
}

struct Data {
  apps::blast::Problem blast;
  apps::taxi::Problem taxi;
  apps::nqueens::Problem nqueens;
  apps::synthetic::Config synthetic;
};

// Budgets per replica: the paper's 32 .. 256 KiB for a GPU block of 128 lanes (N-Queens: larger), and
// for a core's 16 lanes the same range with smaller budgets in front, where its queues are as few
// vectors deep as a GPU's at the paper's smallest budgets.
std::vector<App> make_apps(const std::string& which, double scale, bool gpu, Data& d) {
  std::vector<App> out;
  const std::vector<std::size_t> small =
      gpu ? std::vector<std::size_t>{32 << 10, 64 << 10, 128 << 10, 192 << 10, 256 << 10}
          : std::vector<std::size_t>{4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10};
  const std::vector<std::size_t> large =
      gpu ? std::vector<std::size_t>{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}
          : std::vector<std::size_t>{32 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20};
  if (which == "blast" || which == "all") {
    apps::blast::GeneratorConfig g;
    g.db_length = static_cast<std::uint32_t>(std::min(2.0e9, (1 << 22) * scale));
    g.copies = static_cast<std::uint32_t>(64 * scale);
    g.copy_length = 600;
    d.blast = apps::blast::generate(g);
    out.push_back(make_app("blast", apps::blast::make_instance(d.blast), small));
  }
  if (which == "taxi" || which == "all") {
    apps::taxi::GeneratorConfig g;
    g.lines = static_cast<std::uint32_t>(20000 * scale);
    d.taxi = apps::taxi::parse_lines(apps::taxi::generate_text(g), "generated");
    out.push_back(make_app("taxi", apps::taxi::make_instance(d.taxi), small));
  }
  if (which == "nqueens" || which == "all") {
    const std::uint32_t n = scale >= 64 ? 17 : scale >= 8 ? 15 : scale >= 2 ? 14 : 13;
    d.nqueens = apps::nqueens::make_problem(n);
    out.push_back(make_app("nqueens", apps::nqueens::make_instance(d.nqueens), large));
  }
  if (which == "synthetic" || which == "all") {
    d.synthetic.sources = static_cast<std::uint64_t>(1000000 * scale);
    d.synthetic.gains = {0.5, 2.0, 0.25, 1.0};
    d.synthetic.limits = {1, 4, 1, 1};
    d.synthetic.work = {16, 32, 8, 64};
    out.push_back(make_app("synthetic", apps::synthetic::make_instance(d.synthetic), small));
  }
  if (out.empty()) throw Error::argument("--app", which, "blast, taxi, nqueens, synthetic or all");
  return out;
}

struct Row {
  std::string experiment, app, device, series, plan;
  std::size_t budget = 0;
  double predicted = 0;
  Measure m{};
};

void print_row(const Row& r) {
  std::printf("%-8s %-10s %-6s %-16s %-28s %9zu %10.4f %12llu %10llu %12.5g %s\n", r.experiment.c_str(),
              r.app.c_str(), r.device.c_str(), r.series.c_str(), r.plan.c_str(), r.budget, r.m.seconds,
              static_cast<unsigned long long>(r.m.switches), static_cast<unsigned long long>(r.m.items),
              r.predicted, r.m.sizes.c_str());
  std::fflush(stdout);
}

PipelineOptions base_options(const std::string& device) {
  PipelineOptions o;
  o.devices = parse_devices("--device", device);
  o.collect = false;
  o.ordered = false;
  return o;
}

void sizing(App& app, const std::string& device, int repeats, std::vector<Row>& rows) {
  PipelineOptions o = base_options(device);
  o.sizing = SizingRule::equal;
  o.queue_budget = app.budgets.back();
  o.profile = app.profile(o);  // the gains for the sqrt rule, measured once
  for (const std::size_t budget : app.budgets)
    for (const SizingRule rule : {SizingRule::equal, SizingRule::mercator, SizingRule::sqrt}) {
      o.sizing = rule;
      o.queue_budget = budget;
      Row r{"sizing", app.name, device, std::string(to_string(rule)), "none", budget, 0, {}};
      try {
        r.m = app.run(o, repeats);
      } catch (const Error& e) {
        std::printf("sizing   %-10s %s at %zu: %s\n", app.name.c_str(), std::string(to_string(rule)).c_str(),
                    budget, e.what());
        continue;
      }
      print_row(r);
      rows.push_back(r);
    }
  o.sizing = SizingRule::mercator;
  o.queue_budget = 0;
  Row r{"sizing", app.name, device, "mercator-default", "none", 0, 0, {}};
  r.m = app.run(o, repeats);
  r.budget = r.m.queue_bytes;
  print_row(r);
  rows.push_back(r);
}

std::vector<MergePlan> merge_candidates(const App& app, const PipelinePlan& plan) {
  std::vector<MergePlan> out;
  for (const RankedPlan& r : plan.ranking)
    if (r.fits && (app.nodes <= 5 || out.size() < 8)) out.push_back(r.plan);
  if (app.nodes > 5) {  // the paper's N-Queens strategies: merging pairs from the end
    for (int pairs = 0; pairs <= 3; ++pairs) {
      std::uint32_t cuts = static_cast<std::uint32_t>((std::uint64_t{1} << (app.nodes - 1)) - 1);
      for (int k = 0; k < pairs; ++k) cuts &= ~(1U << (app.nodes - 2 - 2 * k));
      const MergePlan p = MergePlan::from_cuts(app.nodes, cuts);
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

void merge(App& app, const std::string& device, int repeats, std::size_t budget, std::vector<Row>& rows) {
  PipelineOptions o = base_options(device);
  o.sizing = SizingRule::sqrt;
  o.queue_budget = budget;
  const PipelinePlan plan = app.plan(o);
  o.profile = plan.profile;
  std::map<std::string, double> predicted;
  for (const RankedPlan& r : plan.ranking) predicted[r.plan.to_string()] = r.cost;
  std::vector<std::pair<double, std::string>> measured;
  for (const MergePlan& p : merge_candidates(app, plan)) {
    o.merge = p.to_string();
    Row r{"merge", app.name, device, "sqrt", p.to_string(), budget, predicted[p.to_string()], {}};
    try {
      r.m = app.run(o, repeats);
    } catch (const Error& e) {
      std::printf("merge    %-10s %s: %s\n", app.name.c_str(), p.to_string().c_str(), e.what());
      continue;
    }
    print_row(r);
    rows.push_back(r);
    measured.emplace_back(r.m.seconds, p.to_string());
  }
  std::sort(measured.begin(), measured.end());
  if (!measured.empty()) {
    std::size_t rank = 0;
    for (; rank < plan.ranking.size(); ++rank)
      if (plan.ranking[rank].plan.to_string() == measured.front().second) break;
    std::printf("merge    %-10s measured best %s (%.4f s) is the model's #%zu; model's best %s\n",
                app.name.c_str(), measured.front().second.c_str(), measured.front().first, rank + 1,
                plan.ranking.front().plan.to_string().c_str());
  }
}

void fused(App& app, const std::string& device, int repeats, std::size_t budget, std::vector<Row>& rows) {
  PipelineOptions o = base_options(device);
  o.sizing = SizingRule::sqrt;
  o.queue_budget = budget;
  const PipelinePlan plan = app.plan(o);
  o.profile = plan.profile;
  const auto run = [&](const std::string& series, SizingRule rule, std::size_t b,
                       const std::string& merge_plan) {
    PipelineOptions x = o;
    x.sizing = rule;
    x.queue_budget = b;
    x.merge = merge_plan;
    Row r{"fused", app.name, device, series, MergePlan::parse(merge_plan, app.nodes).to_string(), b, 0, {}};
    r.m = app.run(x, repeats);
    print_row(r);
    rows.push_back(r);
    return r.m.seconds;
  };
  const double queue_free =
      run("queue-free", SizingRule::sqrt, budget, MergePlan::fully_merged(app.nodes).to_string());
  const double mercator = run("mercator-default", SizingRule::mercator, 0, "none");
  double best = 1e300;
  std::string best_plan;
  std::size_t tried = 0;
  for (const RankedPlan& r : plan.ranking) {
    if (!r.fits || tried == 3) continue;
    ++tried;
    const double t = run("best-of-top3", SizingRule::sqrt, budget, r.plan.to_string());
    if (t < best) {
      best = t;
      best_plan = r.plan.to_string();
    }
  }
  std::printf("fused    %-10s best plan %s: %.2fx the queue-free kernel, %.2fx Mercator's default sizing\n",
              app.name.c_str(), best_plan.c_str(), queue_free / best, mercator / best);
}

void devices(App& app, int repeats, std::size_t budget, std::vector<Row>& rows) {
  for (const char* device : {"cpu", "gpu0", "all"}) {
    PipelineOptions o = base_options(device);
    o.sizing = SizingRule::sqrt;
    o.queue_budget = budget;
    o.merge = "auto";
    Row r{"devices", app.name, device, "sqrt", "auto", budget, 0, {}};
    try {
      r.m = app.run(o, repeats);
    } catch (const Error& e) {
      std::printf("devices  %-10s %s: %s\n", app.name.c_str(), device, e.what());
      continue;
    }
    print_row(r);
    rows.push_back(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    cli::Arguments args("pipeline_bench",
                        {{"experiment", "sizing|merge|fused|devices|all", "which experiment (default all)"},
                         {"app", "blast|taxi|nqueens|synthetic|all", "which application (default all)"},
                         {"device", "cpu|gpu0|all", "where to run (default cpu)"},
                         {"scale", "S", "input size multiplier (default 1)"},
                         {"budgets", "B,...", "queue budgets per replica in bytes (default per application)"},
                         {"budget", "B",
                          "the budget of the merge, fused and devices experiments (default 192 KiB, "
                          "N-Queens 2 MiB)"},
                         {"repeats", "R", "runs per point, median (default 3)"},
                         {"csv", "F", "write every point"},
                         {"help", "", "this text"}});
    args.parse(argc, argv, 1);
    if (args.has("help")) {
      std::fputs(args.usage().c_str(), stdout);
      return 0;
    }
    const std::string experiment = args.get_or("experiment", "all");
    const std::string device = args.get_or("device", "cpu");
    const double scale = std::stod(args.get_or("scale", "1"));
    const int repeats = static_cast<int>(args.get_int("repeats", 3, 1, 1000));
    Data data;
    std::vector<App> apps = make_apps(args.get_or("app", "all"), scale, device != "cpu", data);
    std::printf("%-8s %-10s %-6s %-16s %-28s %9s %10s %12s %10s %12s %s\n", "exp", "app", "device", "series",
                "plan", "budget", "seconds", "switches", "items", "predicted", "queue sizes");
    std::vector<Row> rows;
    for (App& app : apps) {
      if (args.has("budgets")) {
        app.budgets.clear();
        std::string list = *args.get("budgets");
        std::size_t pos = 0;
        while (pos < list.size()) {
          std::size_t comma = list.find(',', pos);
          if (comma == std::string::npos) comma = list.size();
          app.budgets.push_back(std::stoull(list.substr(pos, comma - pos)));
          pos = comma + 1;
        }
      }
      const std::size_t budget = static_cast<std::size_t>(
          args.get_int("budget",
                       app.name == "nqueens" ? (device == "cpu" ? (256 << 10) : (4 << 20))
                                             : (device == "cpu" ? (32 << 10) : (192 << 10)),
                       1, std::int64_t{1} << 40));
      if (experiment == "sizing" || experiment == "all") sizing(app, device, repeats, rows);
      if (experiment == "merge" || experiment == "all") merge(app, device, repeats, budget, rows);
      if (experiment == "fused" || experiment == "all") fused(app, device, repeats, budget, rows);
      if (experiment == "devices" || (experiment == "all" && device != "cpu"))
        devices(app, repeats, budget, rows);
    }
    if (const auto csv = args.get("csv")) {
      AtomicFile file(*csv);
      file.stream() << "experiment,app,device,series,plan,budget,seconds,switches,vectors,items,predicted\n";
      for (const Row& r : rows)
        file.stream() << r.experiment << ',' << r.app << ',' << r.device << ',' << r.series << ',' << '"'
                      << r.plan << '"' << ',' << r.budget << ',' << format_number(r.m.seconds) << ','
                      << r.m.switches << ',' << r.m.vectors << ',' << r.m.items << ','
                      << format_number(r.predicted) << '\n';
      file.commit();
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipeline_bench: %s\n", e.what());
    return 2;
  }
}
