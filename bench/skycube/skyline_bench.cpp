// The skyline front door from C++ (api/skyline.hpp): the median over --repeats of
// sextant::skyline(data, every column) per distribution x n x d, with the dataset built before the
// clock starts; and ("view") the same call on Dataset::view of the values made inside the clock,
// as a caller holding its own array makes it (the values' finiteness check included), which is
// what bench/python/skyline_bench.py compares the Python call with. Table + CSV.
//
//   skyline_bench --dists indep,anti --n 1000000 --d 4,8 --threads 1 --repeats 5 [--devices cpu]
//                 [--csv out.csv]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/skyline.hpp"
#include "cli/arguments.hpp"
#include "core/error.hpp"
#include "core/stopwatch.hpp"
#include "datagen/skyline_generator.hpp"

namespace {

using namespace sextant;

datagen::Distribution distribution(const std::string& name) {
  if (name == "indep") return datagen::Distribution::independent;
  if (name == "corr") return datagen::Distribution::correlated;
  if (name == "anti") return datagen::Distribution::anticorrelated;
  throw Error::argument("--dists", name, "indep, corr or anti");
}

}  // namespace

int main(int argc, char** argv) try {
  cli::Arguments args("skyline_bench",
                      {
                          {"dists", "LIST", "indep,corr,anti (default indep,anti)"},
                          {"n", "LIST", "points (default 1000000)"},
                          {"d", "LIST", "columns (default 4,8)"},
                          {"threads", "T", "CPU threads, 0 = every core (default 1)"},
                          {"devices", "LIST", "devices (default: none named)"},
                          {"repeats", "R", "runs per row; the median is reported (default 5)"},
                          {"seed", "S", "generator seed (default 1)"},
                          {"csv", "F", "also write the rows as CSV"},
                          {"help", "", "this text"},
                      });
  args.parse(argc, argv, 1);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  SkylineOptions options;
  options.threads = static_cast<int>(args.get_int("threads", 1, 0, 4096));
  if (const auto devices = args.get("devices"))
    options.devices.devices = parse_devices("--devices", *devices);
  const auto repeats = static_cast<int>(args.get_int("repeats", 5, 1, 1000));
  const auto seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1 << 30));
  std::string rows = "dist,n,d,threads,skyline,median_s,min_s,view_median_s\n";
  std::printf("%-6s %9s %3s %7s %9s %10s %10s %13s\n", "dist", "n", "d", "threads", "skyline", "median s",
              "min s", "view median s");
  for (const std::string& dist : args.get_list("dists", "indep,anti"))
    for (const std::string& n_text : args.get_list("n", "1000000"))
      for (const std::string& d_text : args.get_list("d", "4,8")) {
        const Dataset data =
            datagen::generate({distribution(dist), std::stoul(n_text), std::stoi(d_text), seed});
        std::vector<double> seconds, view_seconds;
        std::size_t size = 0;
        (void)skyline(data, options);        // warm: the machine's topology is discovered once, pages touched
        for (int r = 0; r < repeats; ++r) {  // interleaved: both see the same machine
          Stopwatch sw;
          size = skyline(data, options).ids.size();
          seconds.push_back(sw.seconds());
          Stopwatch view_sw;
          const std::size_t view_size =
              skyline(Dataset::view(data.size(), data.dims(), data.values()), options).ids.size();
          view_seconds.push_back(view_sw.seconds());
          if (view_size != size)
            throw Error(ErrorKind::internal, "skyline_bench: the view's skyline differs");
        }
        std::sort(seconds.begin(), seconds.end());
        std::sort(view_seconds.begin(), view_seconds.end());
        const double median = seconds[seconds.size() / 2];
        const double view_median = view_seconds[view_seconds.size() / 2];
        std::printf("%-6s %9zu %3d %7d %9zu %10.4f %10.4f %13.4f\n", dist.c_str(), data.size(), data.dims(),
                    options.threads, size, median, seconds.front(), view_median);
        char line[192];
        std::snprintf(line, sizeof line, "%s,%zu,%d,%d,%zu,%.6f,%.6f,%.6f\n", dist.c_str(), data.size(),
                      data.dims(), options.threads, size, median, seconds.front(), view_median);
        rows += line;
      }
  if (const auto csv = args.get("csv")) {
    std::ofstream out(*csv);
    out << rows;
  }
  return 0;
} catch (const sextant::Error& e) {
  std::fprintf(stderr, "skyline_bench: error: %s\n", e.what());
  return sextant::exit_code(e.kind());
}
