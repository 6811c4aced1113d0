// End-to-end tests of `sextant skycube --devices/--counters/--report`: runs through the scheduler
// write the same skycube as the reference, the per-device table lands on stderr, counters are
// reported or declared unavailable, and bad device requests exit non-zero with a clear message and
// no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "core/config.hpp"
#include "support/cli_fixture.hpp"

namespace sextant {
namespace {

namespace fs = std::filesystem;

using testing::CliFixture;
using testing::slurp;

class SkycubeDevicesCli : public CliFixture {
 protected:
  // The skycube lines of a text output (without '#' comments).
  std::string cube(const std::string& args) {
    const auto out = dir_ / "cube.txt";
    const auto r = run("skycube " + args + " --output " + out.string());
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    std::istringstream in(slurp(out));
    fs::remove(out);
    std::string line, body;
    while (std::getline(in, line))
      if (!line.starts_with("#")) body += line + "\n";
    return body;
  }

  bool has_gpu() { return build::has_cuda && run("info").out.find("gpus: none found") == std::string::npos; }

  static constexpr const char* data = "--generate anti:1500:5:3";
};

TEST_F(SkycubeDevicesCli, EveryTemplateOnTheCpuDevicesWritesTheReferenceSkycube) {
  const std::string expected = cube(std::string(data) + " --template reference");
  ASSERT_FALSE(expected.empty());
  for (const char* tmpl : {"stsc", "sdsc", "mdmc", "auto"})
    for (const char* devices : {"cpu", "all", "numa0"})
      for (const char* threads : {"", " --threads 1"})
        EXPECT_EQ(cube(std::string(data) + " --template " + tmpl + " --devices " + devices + threads),
                  expected)
            << tmpl << " on " << devices << threads;
}

TEST_F(SkycubeDevicesCli, ReportPrintsThePerDeviceTable) {
  const auto r = run(std::string("skycube ") + data + " --template mdmc --devices cpu --report --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* column : {"per-device report (mdmc)", "device", "workers", "tasks", "items", "share",
                             "busy s", "numa0", "total"})
    EXPECT_NE(r.err.find(column), std::string::npos) << column << "\n" << r.err;
  EXPECT_FALSE(r.out.empty());  // the skycube itself still goes to stdout
}

TEST_F(SkycubeDevicesCli, ReportAloneRunsOnAllDevices) {
  const auto r = run(std::string("skycube ") + data + " --template stsc --report --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("per-device report (stsc)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("numa0"), std::string::npos) << r.err;
}

TEST_F(SkycubeDevicesCli, ReferenceHasNoPerDeviceReport) {
  const auto r = run(std::string("skycube ") + data + " --template reference --report --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no per-device report"), std::string::npos) << r.err;
}

TEST_F(SkycubeDevicesCli, CountersAreReportedOrDeclaredUnavailable) {
  const std::string expected = cube(std::string(data) + " --template reference");
  const auto out = dir_ / "c.txt";
  const auto r =
      run(std::string("skycube ") + data +
          " --template mdmc --devices cpu --counters PAPI_TOT_INS,PAPI_L2_TCM --output " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;  // counters never fail a run
  const bool unavailable = r.err.find("counters unavailable") != std::string::npos;
  const bool counted = r.err.find("PAPI_TOT_INS") != std::string::npos && !unavailable;
  EXPECT_TRUE(unavailable || counted) << r.err;
  EXPECT_NE(r.err.find("per-device report"), std::string::npos) << r.err;  // --counters implies it
}

TEST_F(SkycubeDevicesCli, BadDeviceRequestsFailClearlyAndWriteNothing) {
  const std::string out = (dir_ / "never.txt").string();
  struct Case {
    std::string args;
    std::string must_mention;
  };
  const Case cases[] = {
      {"--devices tpu0", "unknown device 'tpu0'"},
      {"--devices gpu", "unknown device 'gpu'"},
      {"--devices numa", "unknown device 'numa'"},
      {"--devices ''", "--devices"},
      {"--devices cpu,cpu", "named twice"},
      {"--devices numa0,", "--devices"},
      {"--devices numa99", "numa99"},
      {"--devices gpu99", "gpu99"},
      {"--counters ''", "--counters"},
      {"--counters PAPI_TOT_INS,,PAPI_L2_TCM", "--counters"},
      {"--template stsc --devices gpu0", "gpu0"},
      {"--template reference --devices gpu0", "gpu0"},
  };
  for (const auto& c : cases) {
    // The last two name gpu0 whether or not this machine has one (no GPU, or a template without
    // GPU hooks).
    const auto r = run("skycube --generate anti:50:3 " + c.args + " --output " + out);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << c.args << "\n  stderr: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args << " left an output file";
  }
}

TEST_F(SkycubeDevicesCli, GpuWithoutAGpuIsAClearError) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  for (const char* devices : {"gpu0", "cpu,gpu0", "gpu0,gpu1"}) {
    const auto r = run(std::string("skycube --generate anti:50:3 --template mdmc --devices ") + devices +
                       " --output " + (dir_ / "o.txt").string());
    EXPECT_NE(r.exit_code, 0) << devices;
    EXPECT_NE(r.err.find("cannot run on GPU gpu0"), std::string::npos) << devices << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "o.txt"));
  }
}

TEST_F(SkycubeDevicesCli, GpuMixesWriteTheReferenceSkycube) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const std::string expected = cube(std::string(data) + " --template reference");
  for (const char* devices : {"gpu0", "cpu,gpu0", "all"}) {
    EXPECT_EQ(cube(std::string(data) + " --template mdmc --devices " + devices), expected) << devices;
    const auto r = run(std::string("skycube ") + data + " --template mdmc --devices " + devices +
                       " --report --output -");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("gpu0"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace sextant
