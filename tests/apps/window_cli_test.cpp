// End-to-end tests of `sextant window` and `sextant generate-column`: hand-derived results,
// the three input paths agree, CPU and GPU agree, and every error exits non-zero naming the
// problem with no output file left behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/config.hpp"
#include "support/cli_fixture.hpp"

namespace sextant {
namespace {

namespace fs = std::filesystem;

using testing::CliFixture;
using testing::RunResult;
using testing::slurp;

class WindowCliTest : public CliFixture {
 protected:
  bool gpu_present() const {
    if (!build::has_cuda) return false;
    return run("info").out.find("gpu0:") != std::string::npos;
  }
};

// Five tuples of key 0; W = 3, S = 2: windows [0,3) = 5,1,4 and [2,5) = 4,2,3; the last
// value (index 5) starts no full window.
constexpr const char* stream_csv = "key,ts,value,wm\n0,1,5,0\n0,2,1,0\n0,3,4,1\n0,4,2,1\n0,5,3,2\n0,6,9,2\n";

TEST_F(WindowCliTest, StreamCsvGivesHandDerivedWindows) {
  const auto in = write("s.csv", stream_csv);
  const std::string base = "window --type count --inplace --input " + in.string() + " --length 3 --slide 2 ";
  const std::pair<const char*, const char*> cases[] = {
      {"sum", "key,start,end,value\n0,0,3,10\n0,2,5,9\n"},
      {"count", "key,start,end,value\n0,0,3,3\n0,2,5,3\n"},
      {"min", "key,start,end,value\n0,0,3,1\n0,2,5,2\n"},
      {"max", "key,start,end,value\n0,0,3,5\n0,2,5,4\n"},
  };
  for (const auto& [agg, want] : cases) {
    const auto r = run(base + "--value-type int32 --agg " + agg + " --output -");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, want) << agg;
  }
  // CSV values default to double: sums print as shortest round-trip doubles.
  const auto r = run(base + "--agg sum --output " + (dir_ / "o.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "o.csv"), "key,start,end,value\n0,0,3,10\n0,2,5,9\n");
  EXPECT_NE(r.err.find("windows=2"), std::string::npos) << r.err;
}

// Values 5,1,4,2,3 at positions 0..4 (timestamps 1..5); W = 3, S = 2: [0,3) and [2,5).
TEST_F(WindowCliTest, PositionalAggregatesPrintWhereTheValueIs) {
  const auto in = write("s.csv", stream_csv);
  const std::string base = "window --type count --inplace --input " + in.string() + " --length 3 --slide 2 ";
  const std::pair<const char*, const char*> cases[] = {
      {"argmin", "key,start,end,value,position\n0,0,3,1,1\n0,2,5,2,3\n"},
      {"argmax", "key,start,end,value,position\n0,0,3,5,0\n0,2,5,4,2\n"},
      {"first", "key,start,end,value,position\n0,0,3,5,0\n0,2,5,4,2\n"},
      {"last", "key,start,end,value,position\n0,0,3,4,2\n0,2,5,3,4\n"},
  };
  for (const auto& [agg, want] : cases) {
    const auto r = run(base + "--value-type int32 --agg " + agg + " --output -");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, want) << agg;
  }
  // Stream time windows W = 4, S = 4 over the same tuples: [0,4) holds ts 1,2,3; [4,8) ts 4,5,6.
  const std::string stream =
      "window --type time --input " + in.string() + " --length 4 --slide 4 --lateness 10 ";
  const auto r = run(stream + "--value-type int64 --agg argmax --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value,timestamp\n0,0,4,5,1\n0,4,8,9,6\n");
  const auto last = run(stream + "--value-type int64 --agg last --output -");
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(last.out, "key,start,end,value,timestamp\n0,0,4,4,3\n0,4,8,9,6\n");
  const auto bad = run(base + "--agg median --output -");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("argmin, argmax, first or last"), std::string::npos) << bad.err;
}

TEST_F(WindowCliTest, GapsTumblingAndNoWindow) {
  const auto in = write("s.csv", "0,0,1,0\n0,1,2,0\n0,2,3,0\n0,3,4,0\n0,4,5,0\n0,5,6,0\n0,6,7,0\n");
  const std::string base =
      "window --type count --inplace --input " + in.string() + " --value-type int64 --agg sum ";
  auto r = run(base + "--length 2 --slide 3 --output -");  // [0,2) [3,5): gaps skipped, ragged end
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value\n0,0,2,3\n0,3,5,9\n");
  r = run(base + "--length 1 --slide 1 --output -");
  EXPECT_EQ(r.out, "key,start,end,value\n0,0,1,1\n0,1,2,2\n0,2,3,3\n0,3,4,4\n0,4,5,5\n0,5,6,6\n0,6,7,7\n");
  r = run(base + "--length 8 --slide 1 --output -");  // n < W: no window, header only
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key,start,end,value\n");
}

TEST_F(WindowCliTest, ColumnFileGenerateAndCsvPathsAgree) {
  const auto col = dir_ / "c.sxtc";
  ASSERT_EQ(run("generate-column --n 5000 --value-type int64 --seed 9 --output " + col.string()).exit_code,
            0);
  const std::string spec = " --length 100 --slide 7 --agg max --output -";
  const auto from_file = run("window --type count --inplace --input " + col.string() + spec);
  const auto generated =
      run("window --type count --inplace --generate 5000 --value-type int64 --seed 9" + spec);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(from_file.out, generated.out);
  EXPECT_EQ(std::count(from_file.out.begin(), from_file.out.end(), '\n'), 1 + (5000 - 100) / 7 + 1);
}

TEST_F(WindowCliTest, CpuAndGpuAgree) {
  if (!gpu_present()) GTEST_SKIP() << "needs a GPU";
  for (const char* agg : {"sum", "min"})
    for (const char* alg : {"auto", "coop", "gbl", "sh", "reduced-prefix"}) {
      if (std::string(agg) == "min" && std::string(alg) == "reduced-prefix") continue;
      const std::string spec = std::string(
                                   " --type count --inplace --generate 100000 --seed 3 --length 96 --slide 5 "
                                   "--agg ") +
                               agg + " --output -";
      const auto cpu = run("window --device cpu" + spec);
      const auto gpu = run("window --device gpu0 --algorithm " + std::string(alg) + spec);
      ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
      EXPECT_EQ(cpu.out, gpu.out) << agg << " " << alg;
      if (std::string(alg) == "auto") {
        EXPECT_NE(gpu.err.find("--algorithm auto chose"), std::string::npos) << gpu.err;
      }
    }
}

TEST_F(WindowCliTest, BadRequestsFailCleanlyWithoutOutput) {
  const auto out = (dir_ / "out.csv").string();
  const auto csv = write("s.csv", stream_csv).string();
  const auto bad_line = write("bad.csv", "0,1,5,0\n0,2,x,0\n").string();
  const auto nan = write("nan.csv", "0,1,5,0\n0,2,nan,0\n").string();
  const auto ragged = write("ragged.csv", "0,1,5,0\n0,2,3\n").string();
  const auto truncated =
      write("t.sxtc", std::string("SXTC\1\0\0\0\1\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0", 24) + "abc").string();
  const std::string ok = " --length 2 --slide 1 --agg sum --output " + out;
  struct Case {
    std::string args;
    std::string must_mention;
  };
  const Case cases[] = {
      {"window --type time --inplace --input " + csv + ok, "--inplace"},
      {"window --type session --inplace --input " + csv + ok, "--type"},
      {"window --type count --inplace --input " + csv + " --length 0 --slide 1 --agg sum --output " + out,
       "--length"},
      {"window --type count --inplace --input " + csv + " --length 2 --agg sum --output " + out, "--slide"},
      {"window --type count --inplace --input " + csv + " --length 2 --slide 1 --agg avg --output " + out,
       "--agg"},
      {"window --type count --inplace --input " + (dir_ / "missing.csv").string() + ok, "missing.csv"},
      {"window --type count --inplace --input " + bad_line + " --value-type int32" + ok, "bad.csv:2:3"},
      {"window --type count --inplace --input " + nan + ok, "nan.csv:2"},
      {"window --type count --inplace --input " + ragged + ok, "ragged.csv:2"},
      {"window --type count --inplace --input " + truncated + ok, "t.sxtc"},
      {"window --type count --inplace --input " + csv + " --value-type int8" + ok, "--value-type"},
      {"window --type count --inplace --input " + csv + " --algorithm gbl" + ok, "--algorithm"},
      {"window --type count --inplace --input " + csv + " --device gpu0 --algorithm fastest" + ok,
       "--algorithm"},
      {"window --type count --inplace --input " + csv + " --device tpu0" + ok, "--device"},
      {"window --type count --inplace --input " + csv + " --device gpu99" + ok, "GPU"},
      {"window --type count --inplace --input " + csv + " --generate 10" + ok, "--input/--generate"},
      {"window --type count --inplace --input " + csv + " --seed 3" + ok, "--seed"},
      {"window --type count --inplace --input " + csv + " --length 2 --slide 1 --agg sum", "--output"},
      {"generate-column --n 10 --value-type int16 --output " + out, "--value-type"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << c.args << "\n  stderr: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args << " left an output file";
  }
}

// A GPU that is not there is "unsupported here" (exit 4), as for skycube --devices gpu0, and is
// found before the input is read; a NUMA node is never silently widened to every core.
TEST_F(WindowCliTest, DeviceErrorsNameTheDeviceWithTheRightExitCode) {
  const auto csv = write("s.csv", stream_csv).string();
  const auto out = (dir_ / "out.csv").string();
  const std::string base = "window --type count --inplace --length 2 --slide 1 --agg sum --output " + out;
  if (!gpu_present()) {
    const auto r = run(base + " --input " + csv + " --device gpu0");
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("cannot run on GPU gpu0"), std::string::npos) << r.err;
    const auto missing = run(base + " --input " + (dir_ / "missing.csv").string() + " --device gpu0");
    EXPECT_EQ(missing.exit_code, 4) << missing.err;  // the device is checked first
  }
  const auto numa7 = run(base + " --input " + csv + " --device numa7");
  EXPECT_EQ(numa7.exit_code, 2) << numa7.err;
  EXPECT_NE(numa7.err.find("no such NUMA node"), std::string::npos) << numa7.err;
  EXPECT_NE(numa7.err.find("numa0"), std::string::npos) << numa7.err;
  const auto numa0 = run(base + " --input " + csv + " --device numa0");
  EXPECT_EQ(numa0.exit_code, 2) << numa0.err;
  EXPECT_NE(numa0.err.find("single NUMA node"), std::string::npos) << numa0.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(WindowCliTest, ColumnFileTypeMismatchIsNamed) {
  const auto col = dir_ / "c.sxtc";
  ASSERT_EQ(run("generate-column --n 10 --value-type float --output " + col.string()).exit_code, 0);
  const auto r = run("window --type count --inplace --input " + col.string() +
                     " --value-type int32 --length 2 --slide 1 --agg sum --output -");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("float"), std::string::npos) << r.err;
}

TEST_F(WindowCliTest, Help) {
  const auto r = run("window --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--inplace"), std::string::npos);
  EXPECT_NE(run("--help").out.find("window"), std::string::npos);
}

}  // namespace
}  // namespace sextant
