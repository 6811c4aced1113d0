// The pipeline family from Python: run, profile and plan the four applications of apps/pipelines
// through the front door (api/pipeline.hpp), and their input generators. The package
// (sextant/pipeline.py) checks and converts the arguments; inputs arrive as NumPy arrays or bytes
// and are copied into the application's problem, and results go out as dicts of NumPy columns
// that own the C++ vectors. The GIL is released around every generator, run, profile and plan.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <sextant/api/pipeline.hpp>
#include <sextant/apps/pipelines/blast.hpp>
#include <sextant/apps/pipelines/nqueens.hpp>
#include <sextant/apps/pipelines/synthetic.hpp>
#include <sextant/apps/pipelines/taxi.hpp>
#include <sextant/core/device.hpp>
#include <sextant/core/error.hpp>
#include <sextant/datagen/input_file.hpp>
#include <sextant/scheduler/statistics.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace sextant::python {

namespace {

using namespace sextant::pipeline;

// The options every operation takes, as the package passes them (already range-checked).
struct Options {
  std::string sizing = "sqrt";
  std::uint64_t queue_budget = 0;
  std::string merge = "none";
  bool ordered = false;
  bool count_only = false;
  std::string devices;
  int threads = 0;
  std::uint32_t lanes = 0;
};

// PipelineOptions, with the sizing rule and (for a run) the merge plan checked first under the
// package's argument names (the front door would name them --sizing and --merge).
template <PipelineType P>
PipelineOptions pipeline_options(const Options& in, bool running) {
  PipelineOptions o;
  o.sizing = parse_sizing("sizing", in.sizing);
  o.queue_budget = static_cast<std::size_t>(in.queue_budget);
  o.merge = in.merge;
  if (running && in.merge != "auto") (void)MergePlan::parse(in.merge, P::size, "merge");
  o.ordered = in.ordered;
  o.collect = !in.count_only;
  if (!in.devices.empty()) o.devices = parse_devices("devices", in.devices);
  o.threads = in.threads;
  o.cpu_lanes = in.lanes;
  return o;
}

// A 2-D NumPy array of rows x cols that owns `values` (row-major).
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<2>> to_numpy_2d(std::vector<T>&& values, std::size_t rows,
                                                   std::size_t cols) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<2>>(owned->data(), {rows, cols}, owner);
}

// A NumPy bool array over 0/1 bytes (a view: no copy).
nb::object bools_to_numpy(std::vector<std::uint8_t>&& flags) {
  return nb::cast(to_numpy(std::move(flags))).attr("view")("bool");
}

nb::list names_list(const std::vector<std::string>& names) {
  nb::list out;
  for (const std::string& n : names) out.append(nb::str(n.c_str(), n.size()));
  return out;
}

nb::dict profile_dict(const PipelineProfile& p) {
  const std::size_t n = p.nodes.size();
  std::vector<std::string> names(n);
  std::vector<std::uint32_t> u(n);
  std::vector<std::uint64_t> inputs(n), outputs(n), vectors(n);
  std::vector<double> g(n), m(n), t(n), overhead(n);
  for (std::size_t i = 0; i < n; ++i) {
    const NodeProfile& x = p.nodes[i];
    names[i] = x.name;
    u[i] = x.gain_limit;
    inputs[i] = x.inputs;
    outputs[i] = x.outputs;
    vectors[i] = x.vectors;
    g[i] = x.g;
    m[i] = x.m;
    t[i] = x.t;
    overhead[i] = x.p;
  }
  nb::dict out;
  out["name"] = names_list(names);
  out["u"] = to_numpy(std::move(u));
  out["inputs"] = to_numpy(std::move(inputs));
  out["outputs"] = to_numpy(std::move(outputs));
  out["vectors"] = to_numpy(std::move(vectors));
  out["g"] = to_numpy(std::move(g));
  out["m"] = to_numpy(std::move(m));
  out["t"] = to_numpy(std::move(t));
  out["p"] = to_numpy(std::move(overhead));
  out["switches"] = p.switches;
  out["firings"] = p.firings;
  out["width"] = p.width;
  out["time_unit"] = p.time_unit;
  out["lockstep"] = p.lockstep;
  out["device"] = p.device;
  out["sources"] = p.sources;
  out["seconds"] = p.seconds;
  out["text"] = format_profile(p);
  return out;
}

// One rule's queue sizes: per queue columns (node = the 1-based node whose outputs it holds).
nb::dict sizes_dict(const QueueSizes& s) {
  const std::size_t n = s.queues.size();
  std::vector<std::uint32_t> node(n), first(n), item_bytes(n);
  std::vector<std::uint64_t> min_items(n), capacity(s.capacity);
  std::vector<double> gain(n);
  std::vector<std::string> producer(n);
  for (std::size_t q = 0; q < n; ++q) {
    const QueueSpec& x = s.queues[q];
    node[q] = static_cast<std::uint32_t>(x.after + 1);
    first[q] = static_cast<std::uint32_t>(x.group_first + 1);
    item_bytes[q] = x.item_bytes;
    min_items[q] = x.min_items;
    gain[q] = x.gain;
    producer[q] = x.producer;
  }
  std::vector<std::uint8_t> inflated(s.inflated.begin(), s.inflated.end());
  nb::dict out;
  out["rule"] = std::string(to_string(s.rule));
  out["budget"] = s.budget;
  out["bytes"] = s.bytes();
  out["min_bytes"] = s.min_bytes();
  out["switch_rate_bound"] = switch_rate_bound(s.capacity, s.queues);
  out["node"] = to_numpy(std::move(node));
  out["group_first"] = to_numpy(std::move(first));
  out["producer"] = names_list(producer);
  out["item_bytes"] = to_numpy(std::move(item_bytes));
  out["min_items"] = to_numpy(std::move(min_items));
  out["gain"] = to_numpy(std::move(gain));
  out["capacity"] = to_numpy(std::move(capacity));
  out["inflated"] = bools_to_numpy(std::move(inflated));
  out["text"] = describe_sizes(s);
  return out;
}

nb::dict ranking_dict(const std::vector<RankedPlan>& ranking, const std::string& time_unit) {
  const std::size_t n = ranking.size();
  std::vector<std::string> strategy(n);
  std::vector<double> cost(n);
  std::vector<std::uint64_t> min_bytes(n);
  std::vector<std::uint8_t> fits(n);
  for (std::size_t i = 0; i < n; ++i) {
    strategy[i] = ranking[i].plan.to_string();
    cost[i] = ranking[i].cost;
    min_bytes[i] = ranking[i].min_queue_bytes;
    fits[i] = ranking[i].fits ? 1 : 0;
  }
  nb::dict out;
  out["strategy"] = names_list(strategy);
  out["cost"] = to_numpy(std::move(cost));
  out["min_queue_bytes"] = to_numpy(std::move(min_bytes));
  out["fits"] = bools_to_numpy(std::move(fits));
  out["time_unit"] = time_unit;
  out["text"] = format_ranking(ranking, time_unit, ranking.size());
  return out;
}

// Columns of the four applications' outputs.
nb::dict columns_of(std::vector<apps::blast::Hit>&& hits) {
  const std::size_t n = hits.size();
  std::vector<std::uint32_t> db(n), query(n), length(n);
  std::vector<std::int32_t> score(n);
  for (std::size_t i = 0; i < n; ++i) {
    db[i] = hits[i].db_begin;
    query[i] = hits[i].query_begin;
    length[i] = hits[i].length;
    score[i] = hits[i].score;
  }
  hits = {};
  nb::dict out;
  out["db_begin"] = to_numpy(std::move(db));
  out["query_begin"] = to_numpy(std::move(query));
  out["length"] = to_numpy(std::move(length));
  out["score"] = to_numpy(std::move(score));
  return out;
}

nb::dict columns_of(std::vector<apps::nqueens::Board>&& boards, std::uint32_t n) {
  std::vector<std::uint8_t> cells(boards.size() * n);
  for (std::size_t i = 0; i < boards.size(); ++i)
    for (std::uint32_t r = 0; r < n; ++r)
      cells[i * n + r] = static_cast<std::uint8_t>(apps::nqueens::column_of(boards[i], r));
  const std::size_t rows = boards.size();
  boards = {};
  nb::dict out;
  out["board"] = to_numpy_2d(std::move(cells), rows, n);
  return out;
}

nb::dict columns_of(std::vector<apps::taxi::Coordinate>&& items) {
  const std::size_t n = items.size();
  std::vector<std::uint32_t> line(n);
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    line[i] = items[i].line;
    x[i] = items[i].x;
    y[i] = items[i].y;
  }
  items = {};
  nb::dict out;
  out["line"] = to_numpy(std::move(line));
  out["x"] = to_numpy(std::move(x));
  out["y"] = to_numpy(std::move(y));
  return out;
}

nb::dict columns_of(std::vector<apps::taxi::LineAggregate>&& lines) {
  const std::size_t n = lines.size();
  std::vector<std::uint32_t> line(n), pairs(n);
  std::vector<float> min_x(n), min_y(n), max_x(n), max_y(n);
  for (std::size_t i = 0; i < n; ++i) {
    line[i] = lines[i].line;
    pairs[i] = lines[i].pairs;
    min_x[i] = lines[i].min_x;
    min_y[i] = lines[i].min_y;
    max_x[i] = lines[i].max_x;
    max_y[i] = lines[i].max_y;
  }
  lines = {};
  nb::dict out;
  out["line"] = to_numpy(std::move(line));
  out["pairs"] = to_numpy(std::move(pairs));
  out["min_x"] = to_numpy(std::move(min_x));
  out["min_y"] = to_numpy(std::move(min_y));
  out["max_x"] = to_numpy(std::move(max_x));
  out["max_y"] = to_numpy(std::move(max_y));
  return out;
}

nb::dict columns_of(std::vector<std::uint64_t>&& values) {
  nb::dict out;
  out["value"] = to_numpy(std::move(values));
  return out;
}

// The run's dict, its items and output (what `sextant pipeline run` writes) already converted.
template <class Out>
nb::dict run_dict(const PipelineResult<Out>& r, nb::object items, nb::object output) {
  nb::dict out;
  out["items"] = std::move(items);
  out["output"] = std::move(output);
  out["count"] = r.count;
  out["plan"] = r.plan.to_string();
  nb::list sizes;
  for (const auto& [device, s] : r.sizes) {
    nb::dict d = sizes_dict(s);
    d["device"] = device;
    sizes.append(d);
  }
  out["queue_sizes"] = sizes;
  out["vectors"] = r.counters.firings;
  out["switches"] = r.counters.switches;
  out["chunks"] = r.counters.chunks;
  out["seconds"] = r.seconds;
  out["devices"] = r.devices;
  out["sample"] = r.sample ? nb::object(profile_dict(*r.sample)) : nb::none();
  out["report"] = r.statistics ? scheduler::report(*r.statistics) : std::string();
  return out;
}

// profile or plan of an instance (run is per application: its outputs differ).
template <PipelineType P>
nb::object profile_or_plan(const std::string& op, const Instance<P>& instance, const Options& in) {
  const PipelineOptions o = pipeline_options<P>(in, false);
  if (op == "profile") {
    PipelineProfile p;
    {
      nb::gil_scoped_release released;
      p = profile_pipeline(instance, o);
    }
    return profile_dict(p);
  }
  if (op != "plan") throw Error::internal("pipeline: unknown operation " + op);
  PipelinePlan plan;
  {
    nb::gil_scoped_release released;
    plan = plan_pipeline(instance, o);
  }
  nb::dict out;
  out["profile"] = profile_dict(plan.profile);
  nb::list sizes;
  for (const QueueSizes& s : plan.sizes) sizes.append(sizes_dict(s));
  out["queue_sizes"] = sizes;
  out["ranking"] = ranking_dict(plan.ranking, plan.profile.time_unit);
  out["best"] = plan.ranking.empty() ? std::string() : plan.ranking.front().plan.to_string();
  return out;
}

// BLAST's settings as the package passes them: k, max_occurrences, window, small_min, reward, penalty,
// x_drop, min_score (range-checked there).
using Settings = std::vector<std::int64_t>;

apps::blast::Settings blast_settings(const Settings& v) {
  if (v.size() != 8) throw Error::internal("pipeline_blast: 8 settings expected");
  apps::blast::Settings s;
  s.k = static_cast<std::uint32_t>(v[0]);
  s.max_occurrences = static_cast<std::uint32_t>(v[1]);
  s.window = static_cast<std::uint32_t>(v[2]);
  s.small_min = static_cast<std::uint32_t>(v[3]);
  s.reward = static_cast<std::int32_t>(v[4]);
  s.penalty = static_cast<std::int32_t>(v[5]);
  s.x_drop = static_cast<std::int32_t>(v[6]);
  s.min_score = static_cast<std::int32_t>(v[7]);
  return s;
}

nb::object blast(const std::string& op, HostArray<std::uint8_t, 1> db, HostArray<std::uint8_t, 1> query,
                 const Settings& settings, const Options& in) {
  apps::blast::Problem p;
  p.settings = blast_settings(settings);
  p.db.assign(db.data(), db.data() + db.shape(0));
  p.query.assign(query.data(), query.data() + query.shape(0));
  p.origin = "db=" + std::to_string(p.db.size()) + " query=" + std::to_string(p.query.size());
  {
    nb::gil_scoped_release released;
    apps::blast::build_table(p);  // checks the settings and the bases
  }
  const Instance<apps::blast::BlastPipeline> instance = apps::blast::make_instance(p);
  if (op != "run") return profile_or_plan(op, instance, in);
  const PipelineOptions o = pipeline_options<apps::blast::BlastPipeline>(in, true);
  PipelineResult<apps::blast::Hit> r;
  std::vector<apps::blast::Hit> distinct;
  {
    nb::gil_scoped_release released;
    r = run_pipeline(instance, o);
    if (!in.count_only) distinct = apps::blast::report_hits(r.items);
  }
  if (in.count_only) return run_dict(r, nb::none(), nb::none());
  nb::object output = columns_of(std::move(distinct));
  nb::object items = columns_of(std::move(r.items));
  return run_dict(r, items, output);
}

nb::object nqueens(const std::string& op, std::uint32_t n, const Options& in) {
  apps::nqueens::Problem p;
  {
    nb::gil_scoped_release released;
    p = apps::nqueens::make_problem(n);
  }
  const Instance<apps::nqueens::NQueensPipeline> instance = apps::nqueens::make_instance(p);
  if (op != "run") return profile_or_plan(op, instance, in);
  const PipelineOptions o = pipeline_options<apps::nqueens::NQueensPipeline>(in, true);
  PipelineResult<apps::nqueens::Board> r;
  {
    nb::gil_scoped_release released;
    r = run_pipeline(instance, o);
  }
  if (in.count_only) return run_dict(r, nb::none(), nb::none());
  nb::object items = columns_of(std::move(r.items), n);
  return run_dict(r, items, items);
}

nb::object taxi(const std::string& op, std::optional<nb::bytes> text, const std::string& origin,
                std::uint32_t max_line, const Options& in) {
  std::string copy;
  if (text) copy.assign(text->c_str(), text->size());
  apps::taxi::Problem p;
  {
    nb::gil_scoped_release released;
    if (!text) {  // origin is a file's path
      datagen::InputFile file(origin);
      copy = datagen::read_text(file);
    }
    p = apps::taxi::parse_lines(std::move(copy), origin, max_line);
  }
  const Instance<apps::taxi::TaxiPipeline> instance = apps::taxi::make_instance(p);
  if (op != "run") return profile_or_plan(op, instance, in);
  if (in.count_only)
    throw Error::argument("count_only", "True", "False for taxi",
                          "taxi needs every pair for its per-line aggregate");
  const PipelineOptions o = pipeline_options<apps::taxi::TaxiPipeline>(in, true);
  PipelineResult<apps::taxi::Coordinate> r;
  std::vector<apps::taxi::LineAggregate> lines;
  {
    nb::gil_scoped_release released;
    r = run_pipeline(instance, o);
    lines = apps::taxi::aggregate(p, r.items);  // reports the first malformed pair
  }
  nb::object output = columns_of(std::move(lines));
  nb::object items = columns_of(std::move(r.items));
  return run_dict(r, items, output);
}

nb::object synthetic(const std::string& op, std::optional<HostArray<std::uint64_t, 1>> values,
                     std::uint64_t count, const std::vector<double>& gains,
                     const std::vector<std::uint32_t>& limits, const std::vector<std::uint32_t>& work,
                     std::uint64_t seed, const Options& in) {
  apps::synthetic::Config c;
  c.sources = values ? values->shape(0) : count;
  c.gains = gains;
  c.limits = limits;
  c.work = work;
  c.seed = seed;
  Instance<apps::synthetic::SyntheticPipeline> instance = apps::synthetic::make_instance(c);
  if (values) instance.sources.items = values->data();  // the array outlives the call
  if (op != "run") return profile_or_plan(op, instance, in);
  const PipelineOptions o = pipeline_options<apps::synthetic::SyntheticPipeline>(in, true);
  PipelineResult<std::uint64_t> r;
  {
    nb::gil_scoped_release released;
    r = run_pipeline(instance, o);
  }
  if (in.count_only) return run_dict(r, nb::none(), nb::none());
  nb::object items = columns_of(std::move(r.items));
  return run_dict(r, items, items);
}

Options options_of(const std::string& sizing, std::uint64_t queue_budget, const std::string& merge,
                   bool ordered, bool count_only, const std::string& devices, int threads,
                   std::uint32_t lanes) {
  return Options{sizing, queue_budget, merge, ordered, count_only, devices, threads, lanes};
}

}  // namespace

void bind_pipeline(nb::module_& m) {
  m.def(
      "pipeline_blast",
      [](const std::string& op, HostArray<std::uint8_t, 1> db, HostArray<std::uint8_t, 1> query,
         const Settings& settings, const std::string& sizing, std::uint64_t queue_budget,
         const std::string& merge, bool ordered, bool count_only, const std::string& devices, int threads,
         std::uint32_t lanes) {
        return blast(op, db, query, settings,
                     options_of(sizing, queue_budget, merge, ordered, count_only, devices, threads, lanes));
      },
      nb::arg("op"), nb::arg("db"), nb::arg("query"), nb::arg("settings"), nb::arg("sizing"),
      nb::arg("queue_budget"), nb::arg("merge"), nb::arg("ordered"), nb::arg("count_only"),
      nb::arg("devices"), nb::arg("threads"), nb::arg("lanes"));
  m.def(
      "pipeline_nqueens",
      [](const std::string& op, std::uint32_t n, const std::string& sizing, std::uint64_t queue_budget,
         const std::string& merge, bool ordered, bool count_only, const std::string& devices, int threads,
         std::uint32_t lanes) {
        return nqueens(op, n,
                       options_of(sizing, queue_budget, merge, ordered, count_only, devices, threads, lanes));
      },
      nb::arg("op"), nb::arg("n"), nb::arg("sizing"), nb::arg("queue_budget"), nb::arg("merge"),
      nb::arg("ordered"), nb::arg("count_only"), nb::arg("devices"), nb::arg("threads"), nb::arg("lanes"));
  m.def(
      "pipeline_taxi",
      [](const std::string& op, std::optional<nb::bytes> text, const std::string& origin,
         std::uint32_t max_line, const std::string& sizing, std::uint64_t queue_budget,
         const std::string& merge, bool ordered, bool count_only, const std::string& devices, int threads,
         std::uint32_t lanes) {
        return taxi(op, std::move(text), origin, max_line,
                    options_of(sizing, queue_budget, merge, ordered, count_only, devices, threads, lanes));
      },
      nb::arg("op"), nb::arg("text").none(), nb::arg("origin"), nb::arg("max_line"), nb::arg("sizing"),
      nb::arg("queue_budget"), nb::arg("merge"), nb::arg("ordered"), nb::arg("count_only"),
      nb::arg("devices"), nb::arg("threads"), nb::arg("lanes"));
  m.def(
      "pipeline_synthetic",
      [](const std::string& op, std::optional<HostArray<std::uint64_t, 1>> values, std::uint64_t count,
         const std::vector<double>& gains, const std::vector<std::uint32_t>& limits,
         const std::vector<std::uint32_t>& work, std::uint64_t seed, const std::string& sizing,
         std::uint64_t queue_budget, const std::string& merge, bool ordered, bool count_only,
         const std::string& devices, int threads, std::uint32_t lanes) {
        return synthetic(
            op, std::move(values), count, gains, limits, work, seed,
            options_of(sizing, queue_budget, merge, ordered, count_only, devices, threads, lanes));
      },
      nb::arg("op"), nb::arg("values").none(), nb::arg("count"), nb::arg("gains"), nb::arg("limits"),
      nb::arg("work"), nb::arg("seed"), nb::arg("sizing"), nb::arg("queue_budget"), nb::arg("merge"),
      nb::arg("ordered"), nb::arg("count_only"), nb::arg("devices"), nb::arg("threads"), nb::arg("lanes"));

  // The generators (the same inputs as `sextant pipeline` with the same options and seed).
  m.def(
      "blast_generate",
      [](std::uint32_t db_length, std::uint32_t query_length, std::uint32_t copies, std::uint32_t copy_length,
         double mutation_rate, std::uint64_t seed, const Settings& settings) {
        apps::blast::GeneratorConfig g;
        g.db_length = db_length;
        g.query_length = query_length;
        g.copies = copies;
        g.copy_length = copy_length;
        g.mutation_rate = mutation_rate;
        g.seed = seed;
        const apps::blast::Settings s = blast_settings(settings);
        apps::blast::Problem p;
        {
          nb::gil_scoped_release released;
          p = apps::blast::generate(g, s);
        }
        return nb::make_tuple(to_numpy(std::move(p.db)), to_numpy(std::move(p.query)), p.origin);
      },
      nb::arg("db_length"), nb::arg("query_length"), nb::arg("copies"), nb::arg("copy_length"),
      nb::arg("mutation_rate"), nb::arg("seed"), nb::arg("settings"));
  m.def(
      "taxi_generate",
      [](std::uint32_t lines, std::uint32_t mean_pairs, std::uint32_t max_pairs, std::uint64_t seed) {
        apps::taxi::GeneratorConfig g;
        g.lines = lines;
        g.mean_pairs = mean_pairs;
        g.max_pairs = max_pairs;
        g.seed = seed;
        std::string text;
        {
          nb::gil_scoped_release released;
          text = apps::taxi::generate_text(g);
        }
        return nb::bytes(text.data(), text.size());
      },
      nb::arg("lines"), nb::arg("mean_pairs"), nb::arg("max_pairs"), nb::arg("seed"));
}

}  // namespace sextant::python
