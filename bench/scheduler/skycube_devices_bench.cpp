// Cross-device skycube experiment: each template on CPU-only, GPU-only and all-device runs through
// the heterogeneous scheduler, with the time, every device's share of the work, a check that every
// device mix gives the same HashCube, and the scheduling overhead: the same number of runs and
// chunks, per device kind, with empty bodies, relative to the run's device phase. Each run is a
// forked child (its own CUDA context and peak RSS; a run past --timeout is stopped); the parent
// never touches CUDA. Prints a table and writes CSV.
//
//   skycube_devices_bench --workloads indep:500000:12,anti:1000000:16 --templates mdmc,sdsc
//                         --configs cpu,gpu,all --repeats 3 --csv devices.csv
//
// A config is a device list with '+' between devices (cpu, numa0+numa1, gpu0+gpu1, all); `gpu`
// means every GPU of the machine. Tiny smoke run: --workloads anti:2000:6 --repeats 1.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "api/machine.hpp"
#include "api/skycube.hpp"
#include "api/skycube_devices.hpp"
#include "bench/support/forked_run.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "datagen/skyline_generator.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/statistics.hpp"

namespace {

using namespace sextant;

// FNV-1a over the bytes written to it: the HashCube's binary form, hashed without a copy.
class HashingBuffer : public std::streambuf {
 public:
  std::uint64_t hash() const noexcept { return hash_; }

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) add(static_cast<unsigned char>(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) add(static_cast<unsigned char>(s[i]));
    return n;
  }

 private:
  void add(unsigned char byte) noexcept { hash_ = (hash_ ^ byte) * 0x100000001b3ull; }
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

std::uint64_t fingerprint(const skycube::HashCube& cube) {
  HashingBuffer buffer;
  std::ostream out(&buffer);
  cube.save(out);
  return buffer.hash();
}

// "gpu" -> every GPU; '+' -> ','.
std::string device_list(const std::string& config) {
  if (config == "gpu") {
    std::string out;
    for (const auto& g : api::machine().gpus)
      out += (out.empty() ? "gpu" : ",gpu") + std::to_string(g.ordinal);
    if (out.empty()) throw Error::unsupported("config 'gpu': no GPU found on this machine");
    return out;
  }
  std::string out = config;
  std::replace(out.begin(), out.end(), '+', ',');
  return out;
}

struct Chunks {
  std::size_t tasks = 0;
  std::size_t items = 0;
};

// The scheduling cost of a run as measured: `runs` parallel_fors with the same chunks per device
// kind, empty bodies, on a scheduler with the same workers. Seconds.
double empty_run_seconds(skycube::TemplateKind kind, const skycube::DeviceOptions& devices, int threads,
                         const scheduler::Statistics& measured) {
  Chunks per_kind[2];
  for (const auto& w : measured.workers) {
    Chunks& c = per_kind[w.device.kind == DeviceKind::gpu ? 1 : 0];
    c.tasks += w.tasks;
    c.items += w.items;
  }
  const std::size_t runs = std::max<std::size_t>(measured.runs, 1);
  const std::size_t items = (per_kind[0].items + per_kind[1].items) / runs;
  if (items == 0) return 0;
  scheduler::WorkStealingPolicy policy;
  policy.cpu_chunk =
      std::max<std::size_t>(1, per_kind[0].items / std::max<std::size_t>(per_kind[0].tasks, 1));
  policy.gpu_chunk =
      std::max<std::size_t>(1, per_kind[1].items / std::max<std::size_t>(per_kind[1].tasks, 1));
  const auto plan = skycube::plan_devices(devices);
  scheduler::SchedulerOptions options = skycube::scheduler_options(kind, plan, threads, devices);
  scheduler::Scheduler s(plan.machine, options);
  scheduler::Codelet empty;
  empty.name = "empty";
  empty.add("", DeviceKind::cpu, [](const scheduler::Chunk&, const scheduler::WorkerContext&) {});
  empty.add("", DeviceKind::gpu, empty.variants.front().run);
  s.parallel_for(items, empty, policy);  // warm-up: threads started and parked once
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t r = 0; r < runs; ++r) s.parallel_for(items, empty, policy);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Measurement {
  bool ok = false;
  std::string error;
  double total = 0;         // the template's phases
  double device_phase = 0;  // "filter+refine" (MDMC) or "lattice" (STSC, SDSC)
  std::string phases;
  std::size_t ext_skyline = 0, ids = 0;
  std::uint64_t cube = 0;
  int workers = 0;
  std::string shares;  // device=share%;...
  std::size_t failures = 0;
  double overhead = 0;  // seconds, empty-body replay
  long peak_rss_kib = 0;
};

std::string child_run(const datagen::GeneratorSpec& spec, const skycube::SkycubeOptions& options,
                      const std::string& config, int gpu_cores, bool overhead) {
  const Dataset data = datagen::generate(spec);
  skycube::DeviceOptions devices;
  devices.devices = parse_devices("--configs", device_list(config));
  devices.gpu_cores = gpu_cores;
  const skycube::SkycubeResult r = skycube::compute_skycube(data, options, devices);
  std::ostringstream s;
  double device_phase = 0;
  s << "ok\t" << r.phases.total() << "\t";
  for (const auto& p : r.phases.phases()) {
    s << p.name << "=" << p.seconds << ";";
    if (p.name == "filter+refine" || p.name == "lattice") device_phase = p.seconds;
  }
  s << "\t" << device_phase << "\t" << r.extended_skyline_size << "\t" << r.cube.stored_ids() << "\t"
    << fingerprint(r.cube) << "\t" << r.statistics->workers.size() << "\t";
  for (const auto& d : r.statistics->devices())
    s << to_string(d.device) << "=" << 100.0 * d.share << "%" << (d.retired_workers ? "(retired)" : "")
      << ";";
  s << "\t" << r.statistics->failures.size() << "\t"
    << (overhead ? empty_run_seconds(options.kind, devices, options.threads, *r.statistics) : 0.0) << "\t";
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  s << u.ru_maxrss << "\n";
  return s.str();
}

Measurement run_child(const datagen::GeneratorSpec& spec, const skycube::SkycubeOptions& options,
                      const std::string& config, int gpu_cores, bool overhead, double timeout_s) {
  const bench::ForkedRun run =
      bench::run_forked([&] { return child_run(spec, options, config, gpu_cores, overhead); }, timeout_s);
  const std::vector<std::string>& f = run.fields;
  Measurement m;
  if (f.size() == 12 && f[0] == "ok") {
    m.ok = true;
    m.total = std::stod(f[1]);
    m.phases = f[2];
    m.device_phase = std::stod(f[3]);
    m.ext_skyline = std::stoull(f[4]);
    m.ids = std::stoull(f[5]);
    m.cube = std::stoull(f[6]);
    m.workers = std::stoi(f[7]);
    m.shares = f[8];
    m.failures = std::stoull(f[9]);
    m.overhead = std::stod(f[10]);
    m.peak_rss_kib = std::stol(f[11]);
  } else {
    m.error = run.error();
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Arguments args("skycube_devices_bench",
                      {{"workloads", "LIST", "DIST:N:D[:SEED],... (default indep:500000:12,anti:1000000:16)"},
                       {"templates", "LIST", "mdmc,sdsc,stsc (default mdmc,sdsc)"},
                       {"configs", "LIST",
                        "device configs, '+' inside one: cpu,gpu,all,gpu0,gpu0+gpu1,numa0 "
                        "(default cpu,gpu,all; gpu = every GPU)"},
                       {"threads", "T", "CPU workers' cores (default 0 = every selected core)"},
                       {"gpu-cores", "C", "cores per GPU host worker (default 0 = the template's choice)"},
                       {"max-level", "L", "partial skycube (default full)"},
                       {"repeats", "R", "runs per configuration; the median is reported (default 3)"},
                       {"no-overhead", "", "skip the empty-body replay that measures scheduling overhead"},
                       {"timeout", "S", "seconds per run before it is stopped (default 3600)"},
                       {"csv", "F", "write every run as CSV"},
                       {"help", "", "this text"}});
  args.parse(argc, argv, 1);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  const auto workloads = args.get_list("workloads", "indep:500000:12,anti:1000000:16");
  const auto templates = args.get_list("templates", "mdmc,sdsc");
  const auto configs = args.get_list("configs", "cpu,gpu,all");
  const int threads = static_cast<int>(args.get_int("threads", 0, 0, 1 << 16));
  const int gpu_cores = static_cast<int>(args.get_int("gpu-cores", 0, 0, 1 << 16));
  const int max_level = static_cast<int>(args.get_int("max-level", 0, 0, 32));
  const int repeats = static_cast<int>(args.get_int("repeats", 3, 1, 100));
  const bool overhead = !args.has("no-overhead");
  const double timeout = static_cast<double>(args.get_int("timeout", 3600, 1, 7 * 86400));
  for (const auto& t : templates) skycube::parse_template("--templates", t);

  std::ofstream csv;
  if (const auto path = args.get("csv")) {
    csv.open(*path);
    if (!csv) throw Error::io(*path, "cannot write");
    csv << "workload,n,d,template,config,threads,gpu_cores,max_level,repeat,total_s,device_phase_s,phases,"
           "extended_"
           "skyline,"
           "ids_stored,workers,device_shares,failures,overhead_s,overhead_pct,same_cube_as_first_config,peak_"
           "rss_mib,"
           "status\n";
  }
  std::printf("%-22s %-6s %-14s %8s %10s %10s %9s %-5s  %s\n", "workload", "tmpl", "config", "workers",
              "median s", "device s", "overhead", "cube", "device shares (median run)");
  for (const auto& w : workloads) {
    const datagen::GeneratorSpec spec = datagen::parse_generate_spec("--workloads", w);
    for (const auto& t : templates) {
      skycube::SkycubeOptions options;
      options.kind = skycube::parse_template("--templates", t);
      options.threads = threads;
      options.max_level = max_level > 0 ? std::min(max_level, spec.d) : 0;
      std::uint64_t first_cube = 0;
      bool have_first = false;
      for (const auto& config : configs) {
        std::vector<Measurement> runs;
        for (int r = 0; r < repeats; ++r) {
          runs.push_back(run_child(spec, options, config, gpu_cores, overhead, timeout));
          const Measurement& m = runs.back();
          const bool same = !have_first || m.cube == first_cube;
          if (m.ok && !have_first) {
            first_cube = m.cube;
            have_first = true;
          }
          if (csv) {
            csv << w << ',' << spec.n << ',' << spec.d << ',' << t << ',' << config << ',' << threads << ','
                << gpu_cores << ',' << (options.max_level ? options.max_level : spec.d) << ',' << r << ','
                << m.total << ',' << m.device_phase << ",\"" << m.phases << "\"," << m.ext_skyline << ','
                << m.ids << ',' << m.workers << ",\"" << m.shares << "\"," << m.failures << ',' << m.overhead
                << ',' << (m.device_phase > 0 ? 100.0 * m.overhead / m.device_phase : 0.0) << ','
                << (m.ok ? (same ? "yes" : "NO") : "") << ',' << static_cast<double>(m.peak_rss_kib) / 1024.0
                << ',' << (m.ok ? "ok" : "\"" + m.error + "\"") << '\n';
            csv.flush();
          }
          if (!m.ok) break;  // an error or timeout will not improve on repeat
        }
        const bool ok = std::all_of(runs.begin(), runs.end(), [](const Measurement& m) { return m.ok; });
        if (!ok) {
          std::printf("%-22s %-6s %-14s  %s\n", w.c_str(), t.c_str(), config.c_str(),
                      runs.back().error.c_str());
          std::fflush(stdout);
          continue;
        }
        std::sort(runs.begin(), runs.end(),
                  [](const Measurement& a, const Measurement& b) { return a.total < b.total; });
        const Measurement& med = runs[runs.size() / 2];
        const bool same =
            std::all_of(runs.begin(), runs.end(), [&](const Measurement& m) { return m.cube == first_cube; });
        char over[32];
        std::snprintf(over, sizeof over, "%.2f%%",
                      med.device_phase > 0 ? 100.0 * med.overhead / med.device_phase : 0.0);
        std::printf("%-22s %-6s %-14s %8d %10.3f %10.3f %9s %-5s  %s%s\n", w.c_str(), t.c_str(),
                    config.c_str(), med.workers, med.total, med.device_phase, overhead ? over : "-",
                    same ? "same" : "DIFF", med.shares.c_str(), med.failures ? " (device failures)" : "");
        std::fflush(stdout);
      }
    }
  }
  return 0;
} catch (const sextant::Error& e) {
  std::fprintf(stderr, "skycube_devices_bench: error: %s\n", e.what());
  return sextant::exit_code(e.kind());
}
