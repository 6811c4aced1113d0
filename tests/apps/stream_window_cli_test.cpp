// End-to-end tests of `sextant window` in stream mode and `sextant generate-stream`: windows
// worked out by hand, generated streams against the independent reference, and every kind of
// bad input exiting non-zero with a clear message and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/config.hpp"
#include "datagen/stream_generator.hpp"
#include "support/cli_fixture.hpp"
#include "testing/stream_window_reference.hpp"

namespace sextant {
namespace {

namespace fs = std::filesystem;

using testing::CliFixture;
using testing::slurp;

class StreamWindowCliTest : public CliFixture {};

// Two keys, out of order: (key 1, ts 0) arrives when the watermark is 2 and is late; the
// watermark 1 of the last row is lower than 3 and ignored.
constexpr const char* hand_csv =
    "key,ts,value,wm\n"
    "1,1,10,0\n"
    "2,3,5,0\n"
    "1,5,1,2\n"
    "1,2,100,2\n"
    "1,0,7,3\n"
    "2,9,2,3\n"
    "1,4,3,1\n";

// W = 4, S = 2: windows [2k, 2k + 4). Key 1 keeps ts 1 (10), 2 (100), 4 (3), 5 (1); key 2 ts 3
// (5), 9 (2). [6, 10) of key 1 and [4, 8) of key 2 hold no tuple and are not emitted.
constexpr const char* hand_sum =
    "key,start,end,value\n"
    "1,0,4,110\n"
    "1,2,6,104\n"
    "1,4,8,4\n"
    "2,0,4,5\n"
    "2,2,6,5\n"
    "2,6,10,2\n"
    "2,8,12,2\n";

TEST_F(StreamWindowCliTest, TimeWindowsWorkedOutByHand) {
  const auto in = write("s.csv", hand_csv).string();
  const std::string base = "window --input " + in + " --type time --length 4 --slide 2 ";
  auto r = run(base + "--agg sum --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, hand_sum);
  for (const char* counter :
       {"tuples_in=7", "late_dropped=1", "watermarks_ignored=1", "windows_emitted=7", "Mtuples/s"})
    EXPECT_NE(r.err.find(counter), std::string::npos) << counter << "\n" << r.err;

  r = run(base + "--agg count --output -");
  EXPECT_EQ(r.out, "key,start,end,value\n1,0,4,2\n1,2,6,3\n1,4,8,2\n2,0,4,1\n2,2,6,1\n2,6,10,1\n2,8,12,1\n");
  r = run(base + "--agg min --output -");
  EXPECT_EQ(r.out, "key,start,end,value\n1,0,4,10\n1,2,6,1\n1,4,8,1\n2,0,4,5\n2,2,6,5\n2,6,10,2\n2,8,12,2\n");
  r = run(base + "--agg max --output -");
  EXPECT_EQ(r.out,
            "key,start,end,value\n1,0,4,100\n1,2,6,100\n1,4,8,3\n2,0,4,5\n2,2,6,5\n2,6,10,2\n2,8,12,2\n");
  // Doubles print shortest round-trip: 104 / 3 = 34.666666666666664.
  r = run(base + "--agg avg --output -");
  EXPECT_EQ(r.out,
            "key,start,end,value\n1,0,4,55\n1,2,6,34.666666666666664\n1,4,8,2\n2,0,4,5\n2,2,6,5\n2,6,10,2\n2,"
            "8,12,2\n");
  // Population variance; the two-value windows are exact in any combine order.
  r = run(base + "--agg var --output -");
  EXPECT_NE(r.out.find("\n1,0,4,2025\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n1,4,8,1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n2,8,12,0\n"), std::string::npos) << r.out;

  // Lateness 2 takes the late tuple back (0 + 2 is not below 2): key 1's first window gains 7.
  r = run(base + "--lateness 2 --agg sum --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n1,0,4,117\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("late_dropped=0"), std::string::npos) << r.err;

  // One tuple per batch changes nothing.
  EXPECT_EQ(run(base + "--agg sum --batch 1 --output -").out, hand_sum);
}

TEST_F(StreamWindowCliTest, CountWindowsWorkedOutByHand) {
  // Count windows ignore timestamps and watermarks: key 1's values in arrival order are
  // 10, 1, 100, 7, 3 and key 2's 5, 2; W = 2, S = 1, only full windows.
  const auto in = write("s.csv", hand_csv).string();
  const auto r = run("window --input " + in + " --type count --length 2 --slide 1 --agg sum --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value\n1,0,2,11\n1,1,3,101\n1,2,4,107\n1,3,5,10\n2,0,2,7\n");
  EXPECT_NE(r.err.find("late_dropped=0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("watermarks_ignored"), std::string::npos) << "count windows ignore watermarks\n"
                                                                 << r.err;
}

TEST_F(StreamWindowCliTest, SeveralSpecsAddASpecColumn) {
  const auto in = write("s.csv", hand_csv).string();
  const auto out = dir_ / "o.csv";
  const auto r =
      run("window --input " + in + " --type time --length 4,2 --slide 2 --agg sum --output " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Spec 1 (W = S = 2, tumbling): key 1 [0,2) 10, [2,4) 100, [4,6) 4; key 2 [2,4) 5, [8,10) 2.
  std::string want = "spec,key,start,end,value\n";
  std::istringstream spec0(std::string(hand_sum).substr(std::string("key,start,end,value\n").size()));
  for (std::string line; std::getline(spec0, line);) want += "0," + line + "\n";
  want += "1,1,0,2,10\n1,1,2,4,100\n1,1,4,6,4\n1,2,2,4,5\n1,2,8,10,2\n";
  EXPECT_EQ(slurp(out), want);
}

TEST_F(StreamWindowCliTest, EmptyStreamWritesTheHeaderOnly) {
  const auto in = write("e.csv", "key,ts,value,wm\n").string();
  const auto r = run("window --input " + in + " --type time --length 4 --slide 2 --agg avg --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value\n");
  EXPECT_NE(r.err.find("tuples_in=0"), std::string::npos) << r.err;
}

// The windows of a result CSV: (key, start) -> (end, value text).
std::map<std::pair<std::uint32_t, std::int64_t>, std::pair<std::int64_t, std::string>> parse_results(
    const std::string& csv) {
  std::map<std::pair<std::uint32_t, std::int64_t>, std::pair<std::int64_t, std::string>> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "key,start,end,value");
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string key, start, end, value;
    std::getline(row, key, ',');
    std::getline(row, start, ',');
    std::getline(row, end, ',');
    std::getline(row, value);
    out[{static_cast<std::uint32_t>(std::stoul(key)), std::stoll(start)}] = {std::stoll(end), value};
  }
  return out;
}

template <class A>
void expect_matches_reference(const std::string& csv,
                              const std::vector<window::testing::RefTuple<std::int32_t>>& tuples,
                              const window::StreamWindowOptions& options) {
  window::testing::ReferenceCounts counts;
  const auto want = window::testing::reference_windows<A>(tuples, options, &counts);
  const auto got = parse_results(csv);
  ASSERT_EQ(got.size(), want.size()) << A::name;
  for (const auto& w : want) {
    const auto it = got.find({w.key, w.start});
    ASSERT_NE(it, got.end()) << A::name << " key " << w.key << " start " << w.start;
    EXPECT_EQ(it->second.first, w.end);
    if constexpr (std::is_integral_v<typename A::Output>)
      EXPECT_EQ(it->second.second, std::to_string(w.value))
          << A::name << " key " << w.key << " start " << w.start;
    else
      EXPECT_NEAR(std::stod(it->second.second), w.value, 1e-9 * std::max(1.0, std::fabs(w.value)))
          << A::name << " key " << w.key;
  }
}

TEST_F(StreamWindowCliTest, GeneratedStreamMatchesTheReference) {
  // 20 000 tuples, 13 Zipf keys, exponential delays of 40 on average with a watermark bound of
  // 60, so some tuples are late; lateness 10 takes some back.
  datagen::StreamGeneratorSpec spec;
  spec.n = 20000;
  spec.keys = 13;
  spec.zipf = 0.9;
  spec.rate = 2;
  spec.delay = 40;
  spec.delay_distribution = datagen::DelayDistribution::exponential;
  spec.watermark_bound = 60;
  spec.seed = 5;
  const std::string gen_args =
      "--keys 13 --zipf 0.9 --rate 2 --delay 40 --delay-dist exp --watermark-bound 60 --seed 5";
  const auto csv = dir_ / "g.csv";
  auto r = run("generate-stream --n 20000 " + gen_args + " --output " + csv.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(csv).substr(0, 16), "key,ts,value,wm\n");

  const auto tuples = datagen::generate_stream(spec);
  const auto columns = datagen::project<std::int32_t>(tuples, datagen::StreamField::int_value, 60);
  std::vector<window::testing::RefTuple<std::int32_t>> ref;
  for (std::size_t i = 0; i < columns.size(); ++i)
    ref.push_back({columns.keys[i], columns.timestamps[i], columns.values[i], columns.watermarks[i]});

  window::StreamWindowOptions options;
  options.specs = {{window::WindowType::time, 300, 70}};
  options.lateness = 10;
  const std::string win = " --type time --length 300 --slide 70 --lateness 10 --batch 777 --output -";
  r = run("window --input " + csv.string() + " --agg sum" + win);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_matches_reference<window::SumAggregate<std::int32_t>>(r.out, ref, options);
  window::testing::ReferenceCounts counts;
  window::testing::reference_windows<window::SumAggregate<std::int32_t>>(ref, options, &counts);
  EXPECT_GT(counts.late, 0u);
  EXPECT_NE(r.err.find("late_dropped=" + std::to_string(counts.late) + " "), std::string::npos) << r.err;

  // Both window stages give the same windows; the summary names the one that ran (S = 70 under
  // W = 300: panes of 10, s = 7, so auto takes the scan).
  EXPECT_NE(r.err.find("cpu + cpu scan"), std::string::npos) << r.err;
  for (const char* stage : {"bpat", "scan", "dense"}) {
    const auto forced = run("window --input " + csv.string() + " --agg sum --window-stage " + stage + win);
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(forced.out, r.out) << stage;
    EXPECT_NE(forced.err.find(std::string("cpu + cpu ") + stage), std::string::npos) << forced.err;
  }
  const auto bad = run("window --input " + csv.string() + " --agg sum --window-stage tree" + win);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--window-stage"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("auto, bpat, scan or dense"), std::string::npos) << bad.err;

  // --generate runs the same stream without a file, batch after batch.
  const auto generated = run("window --generate 20000 " + gen_args + " --agg sum" + win);
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(generated.out, r.out);

  for (const char* agg : {"count", "min", "max", "avg", "var"}) {
    r = run("window --input " + csv.string() + " --agg " + agg + win);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string a = agg;
    if (a == "count") expect_matches_reference<window::CountAggregate<std::int32_t>>(r.out, ref, options);
    if (a == "min") expect_matches_reference<window::MinAggregate<std::int32_t>>(r.out, ref, options);
    if (a == "max") expect_matches_reference<window::MaxAggregate<std::int32_t>>(r.out, ref, options);
    if (a == "avg") expect_matches_reference<window::AvgAggregate<std::int32_t>>(r.out, ref, options);
    if (a == "var") expect_matches_reference<window::VarAggregate<std::int32_t>>(r.out, ref, options);
  }

  options.specs = {{window::WindowType::count, 50, 20}};
  options.lateness = 0;
  r = run("window --input " + csv.string() + " --agg sum --type count --length 50 --slide 20 --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_matches_reference<window::SumAggregate<std::int32_t>>(r.out, ref, options);
}

// Rows without the header, sorted: --order fire writes the same windows in another order.
std::vector<std::string> sorted_rows(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) rows.push_back(line);
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Fire-order output put in key order independently: rows stably sorted by their first three
// numbers (spec, key, start with several specs).
std::string stably_sorted_by_spec_key_start(const std::string& csv) {
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  std::vector<std::pair<std::tuple<long long, long long, long long>, std::string>> rows;
  while (std::getline(in, line)) {
    long long a = 0, b = 0, c = 0;
    char comma = 0;
    std::istringstream fields(line);
    fields >> a >> comma >> b >> comma >> c;
    rows.push_back({{a, b, c}, line});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out = header + "\n";
  for (const auto& row : rows) out += row.second + "\n";
  return out;
}

// The same windows whichever way they reach the output: sorted in memory, sorted through runs
// spilled to $TMPDIR and merged (a budget of a few dozen rows), or written as they fire; key order
// is the fire order stably sorted by (spec, key, start). The spill directory is gone afterwards,
// also when the run fails.
TEST_F(StreamWindowCliTest, FireOrderAndSpilledRunsGiveTheSameWindows) {
  const auto spill = dir_ / "tmp";
  fs::create_directories(spill);
  const std::string env = "TMPDIR=" + spill.string() + " ";
  const std::string base =
      "window --generate 30000 --keys 7 --zipf 0.9 --rate 3 --delay 20 --seed 3 --type time "
      "--length 40,90 --slide 10,30 --batch 1000 ";
  for (const char* agg : {"sum", "argmax", "avg"}) {
    SCOPED_TRACE(agg);
    const std::string run_args = base + "--agg " + agg + " --output -";
    const auto sorted = run(run_args);
    ASSERT_EQ(sorted.exit_code, 0) << sorted.err;
    EXPECT_EQ(sorted.err.find("spilled_runs"), std::string::npos) << sorted.err;
    const auto merged = run_in_env(env, run_args + " --results-budget 4096");
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(merged.out, sorted.out);
    EXPECT_NE(merged.err.find("spilled_runs="), std::string::npos) << merged.err;
    const auto fired = run(run_args + " --order fire");
    ASSERT_EQ(fired.exit_code, 0) << fired.err;
    EXPECT_EQ(fired.out.substr(0, fired.out.find('\n')), sorted.out.substr(0, sorted.out.find('\n')));
    EXPECT_EQ(sorted_rows(fired.out), sorted_rows(sorted.out));
    EXPECT_EQ(stably_sorted_by_spec_key_start(fired.out), sorted.out);
    EXPECT_NE(fired.out, sorted.out) << "fire order is expected to differ from key order here";
  }
  {
    SCOPED_TRACE("5000 keys");  // buckets sorted on their low bits; runs of a few thousand rows
    const std::string run_args =
        "window --generate 60000 --keys 5000 --rate 3 --delay 20 --seed 4 --type time --length 40,90 "
        "--slide 10,30 --batch 1000 --agg sum --output -";
    const auto sorted = run(run_args);
    const auto merged = run_in_env(env, run_args + " --results-budget 300000");
    const auto fired = run(run_args + " --order fire");
    ASSERT_EQ(fired.exit_code, 0) << fired.err;
    EXPECT_NE(merged.err.find("spilled_runs="), std::string::npos) << merged.err;
    EXPECT_EQ(stably_sorted_by_spec_key_start(fired.out), sorted.out);
    EXPECT_EQ(merged.out, sorted.out);
  }
  EXPECT_TRUE(fs::is_empty(spill)) << "sorted runs left behind";
  // A failure after runs have spilled (an int64 sum overflows late in the stream) removes them too.
  std::string csv = "key,ts,value,wm\n";
  for (int i = 0; i < 400; ++i)
    csv += std::to_string(i % 5) + "," + std::to_string(i) + ",1," + std::to_string(i) + "\n";
  csv += "0,400,9223372036854775807,400\n0,401,9223372036854775807,401\n";
  const auto in = write("overflow.csv", csv);
  const auto out = dir_ / "out.csv";
  const auto failed = run_in_env(env, "window --input " + in.string() +
                                          " --type time --length 8 --slide 1 --agg sum --value-type int64 "
                                          "--batch 10 --results-budget 1024 --output " +
                                          out.string());
  EXPECT_EQ(failed.exit_code, 2) << failed.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(spill)) << "sorted runs left behind after an error";
  // A temporary directory that does not exist is named, with what to do.
  const auto nowhere = run_in_env("TMPDIR=" + (dir_ / "missing").string() + " ",
                                  base + "--agg sum --results-budget 1024 --output " + out.string());
  EXPECT_EQ(nowhere.exit_code, 3) << nowhere.err;
  EXPECT_NE(nowhere.err.find("set TMPDIR"), std::string::npos) << nowhere.err;
  EXPECT_FALSE(fs::exists(out));
  const auto bad = run(base + "--agg sum --order time --output -");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("key or fire"), std::string::npos) << bad.err;
}

TEST_F(StreamWindowCliTest, CpuAndGpuAgree) {
  if (!build::has_cuda || run("info").out.find("gpu0:") == std::string::npos) GTEST_SKIP() << "needs a GPU";
  const std::string stream =
      "window --generate 200000 --keys 100 --zipf 0.9 --rate 4 --delay 50 --delay-dist exp --watermark-bound "
      "100 ";
  // Four batches or more, so that the host generates batches ahead of the GPU (two buffers in turn);
  // 65537 tuples take the generator's parallel path, the last batch is 3 tuples.
  for (const char* agg : {"sum", "count", "min", "max"})
    for (const char* spec : {"--type time --length 1000,300 --slide 100 --lateness 20 --batch 65537",
                             "--type count --length 64 --slide 16 --batch 50000"}) {
      const std::string args = stream + spec + " --agg " + agg + " --output -";
      const auto cpu = run(args + " --device cpu");
      const auto gpu = run(args + " --device gpu0");
      ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
      EXPECT_EQ(cpu.out, gpu.out) << args;
    }
}

TEST_F(StreamWindowCliTest, GenerateStreamIsDeterministic) {
  const std::string args = "generate-stream --n 3000 --keys 4 --delay 5 --value-type float --output ";
  ASSERT_EQ(run(args + (dir_ / "a.csv").string()).exit_code, 0);
  ASSERT_EQ(run(args + (dir_ / "b.csv").string()).exit_code, 0);
  EXPECT_EQ(slurp(dir_ / "a.csv"), slurp(dir_ / "b.csv"));
  const auto r = run(args + "-");
  EXPECT_EQ(r.out, slurp(dir_ / "a.csv"));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3001);
}

// --device is parsed as the count windows parse it (core/device.hpp): a NUMA node is refused
// with the same reasons (it used to be "name exactly one device" here), never widened.
TEST_F(StreamWindowCliTest, NumaNodeIsRefusedAsForTheCountWindows) {
  const auto csv = write("s.csv", hand_csv).string();
  const auto out = (dir_ / "out.csv").string();
  const std::string base =
      "window --input " + csv + " --type time --length 4 --slide 2 --agg sum --output " + out;
  const auto numa0 = run(base + " --device numa0");
  EXPECT_EQ(numa0.exit_code, 2) << numa0.err;
  EXPECT_NE(numa0.err.find("the stream windows do not run on a single NUMA node"), std::string::npos)
      << numa0.err;
  const auto numa7 = run(base + " --device numa7");
  EXPECT_EQ(numa7.exit_code, 2) << numa7.err;
  EXPECT_NE(numa7.err.find("no such NUMA node"), std::string::npos) << numa7.err;
  EXPECT_NE(numa7.err.find("numa0"), std::string::npos) << numa7.err;
  const auto all = run(base + " --device all");
  EXPECT_EQ(all.exit_code, 2) << all.err;
  EXPECT_NE(all.err.find("name exactly one device"), std::string::npos) << all.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(StreamWindowCliTest, BadInputFailsCleanlyWithoutOutput) {
  const auto out = (dir_ / "out.csv").string();
  const auto csv = write("s.csv", hand_csv).string();
  const auto negative = write("neg.csv", "key,ts,value,wm\n0,1,5,0\n0,-2,1,0\n").string();
  const auto malformed = write("bad.csv", "0,1,5,0\n0,2,x,0\n").string();
  const auto ragged = write("ragged.csv", "0,1,5,0\n0,2,3\n").string();
  const auto big_key = write("key.csv", "4294967296,1,5,0\n").string();
  const auto nan = write("nan.csv", "0,1,5,0\n0,2,nan,0\n").string();
  const std::string ok = " --type time --length 4 --slide 2 --agg sum --output " + out;
  const std::string in = "window --input " + csv;
  struct Case {
    std::string args;
    std::string must_mention;
  };
  std::vector<Case> cases = {
      {"window --input " + negative + ok, "neg.csv:3:2: negative timestamp"},
      {"window --input " + malformed + ok, "bad.csv:2:3"},
      {"window --input " + ragged + ok, "ragged.csv:2"},
      {"window --input " + big_key + ok, "key.csv:1:1"},
      {"window --input " + nan + ok, "nan.csv:2:3"},
      {"window --input " + (dir_ / "missing.csv").string() + ok, "missing.csv"},
      {in + " --type time --length 0 --slide 2 --agg sum --output " + out, "--length"},
      {in + " --type time --length 4 --slide -1 --agg sum --output " + out, "--slide"},
      {in + " --type time --length 4,x --slide 2 --agg sum --output " + out, "--length"},
      {in + " --type time --length 4,2,1 --slide 2,1 --agg sum --output " + out, "--length/--slide"},
      {in + " --type time --length 4 --agg sum --output " + out, "--slide"},
      {in + " --type count --length 4 --slide 2 --lateness 5 --agg sum --output " + out, "--lateness"},
      {in + " --type time --length 4 --slide 2 --lateness -1 --agg sum --output " + out, "--lateness"},
      {in + " --type time --length 4 --slide 2 --agg median --output " + out, "--agg"},
      {in + " --type session --length 4 --slide 2 --agg sum --output " + out, "--type"},
      {in + ok + " --windows-per-tree 0", "--windows-per-tree"},
      {in + ok + " --batch 0", "--batch"},
      {in + ok + " --batch 12x", "--batch"},
      {in + ok + " --batch automatic", "--batch"},
      {in + ok + " --algorithm coop", "--algorithm"},
      {in + ok + " --keys 3", "--keys"},
      {in + ok + " --value-type int8", "--value-type"},
      {in + ok + " --device tpu0", "--device"},
      {in + ok + " --generate 10", "--input/--generate"},
      {"window --generate 10 --zipf -1" + ok, "--zipf"},
      {"window --generate 10 --delay-dist normal" + ok, "--delay-dist"},
      {"window --generate 10 --rate 0" + ok, "--rate"},
      {in + " --type time --length 4 --slide 2 --agg sum", "--output"},
      {"window --type count --inplace --input " + csv +
           " --length 2 --slide 1 --agg sum --lateness 1 --output " + out,
       "--lateness"},
      {"window --type time --inplace --input " + csv + " --length 2 --slide 1 --agg sum --output " + out,
       "--inplace"},
      {"generate-stream --n 10 --value-type double --output " + out, "--value-type"},
      {"generate-stream --n 10 --keys 0 --output " + out, "--keys"},
  };
  if (!build::has_cuda) cases.push_back({in + ok + " --device gpu0", "no CUDA support"});
  for (const auto& c : cases) {
    const auto r = run(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << c.args << "\n  stderr: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args << " left an output file";
  }
}

// Integer extremes: a timestamp whose windows would end beyond int64 is refused naming the row,
// the value and the limit; sums are exact in 128 bits (overflowing int64 is an error naming the
// key and window), avg and var are exact for large integers; infinite double sums are errors.
TEST_F(StreamWindowCliTest, IntegerExtremesAreExactOrRefused) {
  const auto out = (dir_ / "out.csv").string();
  const std::string spec = " --type time --length 10 --slide 5 --output ";
  const auto far = write("far.csv", "key,ts,value,wm\n0,9223372036854775800,5,0\n").string();
  auto r = run("window --input " + far + spec + out + " --agg sum");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  for (const char* part : {"far.csv: data row 1 (key 0)", "9223372036854775800", "9223367638808264688"})
    EXPECT_NE(r.err.find(part), std::string::npos) << part << "\n" << r.err;
  EXPECT_FALSE(fs::exists(out));

  const auto big =
      write("big.csv", "key,ts,value,wm\n4,1,9000000000000000000,0\n4,2,9000000000000000000,0\n").string();
  r = run("window --input " + big + spec + "- --agg avg");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value\n4,0,10,9e+18\n");
  r = run("window --input " + big + spec + out + " --agg sum");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("key 4, window [0, 10)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));

  const auto close = write("close.csv",
                           "key,ts,value,wm\n0,1,1000000000000000000,0\n0,2,1000000000000000001,0\n"
                           "0,3,1000000000000000002,0\n")
                         .string();
  r = run("window --input " + close + spec + "- --agg var");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value\n0,0,10,0.6666666666666666\n");

  const auto huge = write("huge.csv", "key,ts,value,wm\n0,1,1e308,0\n0,2,1e308,0\n").string();
  r = run("window --input " + huge + spec + out + " --agg sum --value-type double");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not finite"), std::string::npos) << r.err;
}

// A tree spanning more than 2^40 panes can never work (exit 2, naming the combination and the
// valid windows per tree); one that cannot fit in memory is refused before any work (exit 5).
TEST_F(StreamWindowCliTest, TreesTooLargeAreNamedUpFront) {
  const auto out = (dir_ / "out.csv").string();
  const auto in = write("two.csv", "key,ts,value,wm\n0,0,1,0\n0,1099511627776,2,0\n").string();
  const std::string base = "window --input " + in + " --type time --length 1099511627776 --slide 1 --agg sum";
  auto r = run(base + " --output " + out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("length 1099511627776, slide 1 and windows per tree 64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("valid: windows per tree 1 .. 1"), std::string::npos) << r.err;
  r = run(base + " --windows-per-tree 1 --output " + out);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("GiB per key"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(StreamWindowCliTest, HelpListsTheStreamOptions) {
  const auto r = run("window --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--lateness", "--windows-per-tree", "--window-stage", "--batch", "--order",
                             "--results-budget", "--zipf", "--delay-dist"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  EXPECT_NE(run("--help").out.find("generate-stream"), std::string::npos);
}

}  // namespace
}  // namespace sextant
