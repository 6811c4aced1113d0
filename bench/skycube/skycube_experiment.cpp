// Experiment driver for the skycube templates: every template over distribution x n x d x
// threads (and the NBA data), each run in a forked child so that its peak RSS is its own and a
// run past --timeout can be stopped. Prints a table and writes CSV: time per phase (on a GPU also
// the device's upload / kernel / download time inside the phases, after a '|'), HashCube bytes,
// ids stored, peak RSS, and speed-up over one thread (when 1 is among --threads).
//
//   skycube_experiment --dists indep,anti --n 100000,500000 --d 8,12 --templates stsc,sdsc,mdmc
//                      --threads 1,2 --repeats 3 [--nba data/nba-8-17264.csv] [--timeout 600] --csv out.csv
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/skycube.hpp"
#include "bench/support/forked_run.hpp"
#include "cli/arguments.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "datagen/csv.hpp"
#include "datagen/skyline_generator.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/skycube/lattice_skycube_gpu.hpp"
#include "gpu/skycube/mdmc_skycube_gpu.hpp"
#endif

namespace {

using namespace sextant;

struct Measurement {
  bool ok = false;
  std::string error;
  std::string chosen;
  double total = 0;
  std::string phases;  // "name=seconds;..."
  std::size_t ext_skyline = 0, ids = 0, bytes = 0;
  long peak_rss_kib = 0;
};

// Runs one configuration in a child process; the child loads the data itself (the parent never
// starts an OpenMP team, which would not survive fork) and reports one line through a pipe.
// --gpu-entry: the single-GPU entries (mdmc_gpu, sdsc_gpu: both hooks on the GPU, no scheduler),
// whose results carry the GPU's upload / kernel / download time per phase.
skycube::SkycubeResult compute(const Dataset& data, const skycube::SkycubeOptions& options,
                               const DeviceSelection& devices, bool gpu_entry) {
  if (!gpu_entry) return skycube::compute_skycube(data, options, devices);
#if SEXTANT_HAS_CUDA
  if (devices.all || devices.devices.size() != 1 || devices.devices.front().kind != DeviceKind::gpu)
    throw Error::argument("--gpu-entry", "set", "with --devices gpuN (one GPU)");
  const int gpu = devices.devices.front().index;
  if (options.kind == skycube::TemplateKind::sdsc) return skycube::sdsc_gpu(data, options, gpu);
  if (options.kind == skycube::TemplateKind::mdmc) return skycube::mdmc_gpu(data, options, gpu);
  throw Error::argument("--templates", std::string(skycube::to_string(options.kind)),
                        "sdsc or mdmc with --gpu-entry");
#else
  (void)data, (void)options, (void)devices;
  throw Error::unsupported("--gpu-entry: this build has no CUDA");
#endif
}

Measurement run_child(const std::function<Dataset()>& load, const skycube::SkycubeOptions& options,
                      const DeviceSelection& devices, bool gpu_entry, double timeout_s) {
  const bench::ForkedRun run = bench::run_forked(
      [&] {
        const Dataset data = load();
        const auto r = compute(data, options, devices, gpu_entry);
        std::ostringstream s;
        s << "ok\t" << r.template_name << "\t" << r.phases.total() << "\t";
        for (const auto& p : r.phases.phases()) s << p.name << "=" << p.seconds << ";";
        // GPU runs: device time inside those phases (upload / kernels / download), after a '|'.
        if (!r.device_times.phases().empty()) s << "|";
        for (const auto& p : r.device_times.phases()) s << p.name << "=" << p.seconds << ";";
        s << "\t" << r.extended_skyline_size << "\t" << r.cube.stored_ids() << "\t" << r.cube.bytes() << "\t";
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        s << u.ru_maxrss;
        return s.str();
      },
      timeout_s);
  const std::vector<std::string>& f = run.fields;
  Measurement m;
  if (f.size() == 8 && f[0] == "ok") {
    m.ok = true;
    m.chosen = f[1];
    m.total = std::stod(f[2]);
    m.phases = f[3];
    m.ext_skyline = std::stoull(f[4]);
    m.ids = std::stoull(f[5]);
    m.bytes = std::stoull(f[6]);
    m.peak_rss_kib = std::stol(f[7]);
  } else {
    m.error = run.error();
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Arguments args("skycube_experiment",
                      {{"dists", "LIST", "indep,corr,anti,ties:Q (default indep,corr,anti)"},
                       {"n", "LIST", "point counts (default 100000)"},
                       {"d", "LIST", "column counts (default 8)"},
                       {"templates", "LIST", "stsc,sdsc,mdmc,reference (default stsc,sdsc,mdmc)"},
                       {"threads", "LIST", "thread counts (default: 1 and every core)"},
                       {"max-level", "L", "partial skycube (default full)"},
                       {"devices", "LIST",
                        "run through the scheduler on these devices, e.g. cpu or gpu0 (default: "
                        "the CPU's OpenMP threads, no scheduler)"},
                       {"gpu-entry", "",
                        "with --devices gpuN: the single-GPU entries (sdsc, mdmc) instead of the scheduler; "
                        "phases then show the GPU's upload/kernel/download time"},
                       {"repeats", "R", "runs per configuration; the median is reported (default 3)"},
                       {"seed", "S", "generator seed (default 1)"},
                       {"nba", "F", "also run on this CSV (the NBA data)"},
                       {"timeout", "S", "seconds per run before it is stopped (default 900)"},
                       {"csv", "F", "write all rows as CSV"},
                       {"help", "", "this text"}});
  args.parse(argc, argv, 1);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto dists = args.get_list("dists", "indep,corr,anti");
  const auto ns = args.get_list("n", "100000");
  const auto ds = args.get_list("d", "8");
  const auto templates = args.get_list("templates", "stsc,sdsc,mdmc");
  const auto threads = args.get_list("threads", cores == 1 ? "1" : "1," + std::to_string(cores));
  const int repeats = static_cast<int>(args.get_int("repeats", 3, 1, 100));
  const auto seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1LL << 40));
  const double timeout = static_cast<double>(args.get_int("timeout", 900, 1, 86400));
  const int max_level = static_cast<int>(args.get_int("max-level", 0, 0, 32));
  const auto devices =
      args.has("devices") ? parse_devices("--devices", *args.get("devices")) : DeviceSelection{};
  const bool gpu_entry = args.has("gpu-entry");

  struct Workload {
    std::string name;
    std::size_t n = 0;
    int d = 0;
    std::function<Dataset()> load;
  };
  std::vector<Workload> workloads;
  for (const auto& dist : dists)
    for (const auto& n : ns)
      for (const auto& d : ds) {
        auto spec =
            datagen::parse_generate_spec("workload", dist + ":" + n + ":" + d + ":" + std::to_string(seed));
        workloads.push_back(
            {dist + " n=" + n + " d=" + d, spec.n, spec.d, [spec] { return datagen::generate(spec); }});
      }
  if (const auto nba = args.get("nba")) {
    const std::string path = *nba;
    workloads.push_back({"nba n=17264 d=8", 17264, 8, [path] { return datagen::read_csv(path); }});
  }

  std::ofstream csv;
  if (const auto path = args.get("csv")) {
    csv.open(*path);
    if (!csv) throw Error::io(*path, "cannot write");
    csv << "workload,n,d,devices,template,threads,max_level,repeats,median_s,min_s,speedup_vs_1_thread,"
           "phases,"
           "extended_skyline,ids_stored,hashcube_bytes,peak_rss_mib,status\n";
  }
  std::printf("%-28s %-9s %7s %10s %10s %8s %12s %12s %10s  %s\n", "workload", "template", "threads",
              "median s", "min s", "speedup", "ext skyline", "HashCube MB", "RSS MiB", "phases (median run)");
  for (const auto& w : workloads) {
    for (const auto& t : templates) {
      std::map<int, double> median_by_threads;
      for (const auto& th : threads) {
        skycube::SkycubeOptions options;
        options.kind = skycube::parse_template("--templates", t);
        options.threads = std::stoi(th);
        options.max_level = max_level > 0 ? std::min(max_level, w.d) : 0;
        std::vector<Measurement> runs;
        for (int r = 0; r < repeats; ++r) {
          runs.push_back(run_child(w.load, options, devices, gpu_entry, timeout));
          if (!runs.back().ok) break;  // an error or timeout will not improve on repeat
        }
        const bool ok = std::all_of(runs.begin(), runs.end(), [](const Measurement& m) { return m.ok; });
        std::sort(runs.begin(), runs.end(),
                  [](const Measurement& a, const Measurement& b) { return a.total < b.total; });
        const Measurement& med = runs[runs.size() / 2];
        const double median = ok ? med.total : 0;
        if (ok) median_by_threads[options.threads] = median;
        const double speedup = ok && median_by_threads.contains(1) ? median_by_threads[1] / median : 0;
        if (ok) {
          std::printf("%-28s %-9s %7d %10.3f %10.3f %8.2f %12zu %12.2f %10.1f  %s\n", w.name.c_str(),
                      t.c_str(), options.threads, median, runs.front().total, speedup, med.ext_skyline,
                      static_cast<double>(med.bytes) / 1e6, static_cast<double>(med.peak_rss_kib) / 1024.0,
                      med.phases.c_str());
        } else {
          std::printf("%-28s %-9s %7d  %s\n", w.name.c_str(), t.c_str(), options.threads,
                      runs.back().error.c_str());
        }
        std::fflush(stdout);
        if (csv) {
          csv << '"' << w.name << "\"," << w.n << ',' << w.d << ',' << args.get_or("devices", "openmp") << ','
              << t << ',' << options.threads << ',' << (options.max_level ? options.max_level : w.d) << ','
              << runs.size() << ',' << median << ',' << (ok ? runs.front().total : 0) << ',' << speedup
              << ",\"" << med.phases << "\"," << med.ext_skyline << ',' << med.ids << ',' << med.bytes << ','
              << static_cast<double>(med.peak_rss_kib) / 1024.0 << ',' << (ok ? "ok" : runs.back().error)
              << '\n';
          csv.flush();
        }
      }
    }
  }
  return 0;
} catch (const sextant::Error& e) {
  std::fprintf(stderr, "skycube_experiment: error: %s\n", e.what());
  return sextant::exit_code(e.kind());
}
