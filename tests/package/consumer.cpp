// Builds against the installed Sextant through <sextant/...> alone and runs, on the CPU, a tiny
// skycube (with hardware counters asked for: they are optional, so the run succeeds whether PAPI
// loads or not), a count window and a stream window, each checked against values worked out by
// hand. Exit 0 when all match; prints what it found.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sextant/core/config.hpp>
#include <sextant/skycube.hpp>
#include <sextant/window.hpp>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

// Points (1,4) (4,1) (2,2) (3,3), smaller is better: column 0 alone is won by point 0, column 1 by
// point 1; in both, (3,3) is dominated by (2,2) and the other three are incomparable.
void skycube() {
  using namespace sextant;
  const Dataset data(4, 2, std::vector<float>{1, 4, 4, 1, 2, 2, 3, 3});
  skycube::SkycubeOptions options;
  options.kind = skycube::TemplateKind::reference;
  const auto reference = skycube::compute_skycube(data, options);
  check(reference.cube.skyline(0b01) == std::vector<PointId>{0}, "skyline of {0} is {0}");
  check(reference.cube.skyline(0b10) == std::vector<PointId>{1}, "skyline of {1} is {1}");
  check(reference.cube.skyline(0b11) == std::vector<PointId>{0, 1, 2}, "skyline of {0,1} is {0,1,2}");

  options.kind = skycube::TemplateKind::mdmc;
  options.threads = 1;
  skycube::DeviceOptions devices;
  devices.counters = {"PAPI_TOT_INS"};
  const auto counted = skycube::compute_skycube(data, options, devices);
  check(counted.cube.skyline(0b11) == reference.cube.skyline(0b11),
        "mdmc with counters gives the same skyline");
  check(counted.statistics != nullptr, "a run through the scheduler has statistics");
  if (counted.statistics != nullptr) {
    const auto& status = counted.statistics->counters;
    std::printf("counters %s\n", status.available ? "available" : ("unavailable: " + status.reason).c_str());
  }
}

// Count windows W = 4, S = 2 over 1..6: [1,2,3,4] and [3,4,5,6].
void count_window() {
  using namespace sextant::window;
  const std::vector<std::int32_t> values = {1, 2, 3, 4, 5, 6};
  const auto result = aggregate_count(std::span<const std::int32_t>(values), 4, 2, AggregateKind::sum);
  const std::span<const std::int64_t> sums = column_as<std::int64_t>(result.values);
  check(std::ranges::equal(sums, std::vector<std::int64_t>{10, 18}), "count-window sums are 10 18");
}

// Time windows W = 4, S = 2 (window k >= 0 is [2k, 2k + 4)), sum per key, tuples out of order:
// key 0: t=3 v=4, t=0 v=1, t=5 v=8, t=1 v=2 -> [0,4) 1+2+4, [2,6) 4+8, [4,8) 8; key 1: t=2 v=100
// -> [0,4) and [2,6). No watermarks: every window fires at the end of the stream.
void stream_window() {
  using namespace sextant::window;
  StreamWindowOptions options;
  options.specs = {{WindowType::time, 4, 2}};
  StreamWindow op(ValueType::int64, StreamAggregateKind::sum, options,
                  {.device = sextant::DeviceId{sextant::DeviceKind::cpu}, .threads = 1});
  const std::vector<StreamKey> keys = {0, 0, 0, 1, 0};
  const std::vector<std::int64_t> timestamps = {3, 0, 5, 2, 1};
  const std::vector<std::int64_t> values = {4, 1, 8, 100, 2};
  op.push(StreamBatch<std::int64_t>{keys, timestamps, values, {}});
  op.finish();
  StreamResults results;
  op.poll(results);
  results.sort();
  std::string text;
  for (std::size_t i = 0; i < results.size(); ++i) {
    text += std::to_string(results.keys[i]) + ":[" + std::to_string(results.starts[i]) + "," +
            std::to_string(results.ends[i]) + ")=";
    results.append_value(text, i);
    text += ' ';
  }
  std::printf("stream windows: %s\n", text.c_str());
  check(text == "0:[0,4)=7 0:[2,6)=12 0:[4,8)=8 1:[0,4)=100 1:[2,6)=100 ",
        "stream-window sums per key and window");
}

}  // namespace

int main() {
  std::printf("installed package sextant %s (papi.h in the build: %s)\n", sextant::build::version,
              sextant::build::has_papi ? "yes" : "no");
  skycube();
  count_window();
  stream_window();
  return failures == 0 ? 0 : 1;
}
