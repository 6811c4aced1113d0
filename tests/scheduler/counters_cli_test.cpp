// `sextant skycube --counters` where PAPI cannot be loaded (SEXTANT_PAPI_LIBRARY names a library
// that does not exist, as on a machine without PAPI): the run succeeds, writes the same skycube,
// and the report says why there are no counters, naming the library that failed to load.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <sstream>
#include <string>

#include "core/config.hpp"
#include "support/cli_fixture.hpp"

namespace sextant {
namespace {

using testing::CliFixture;
using testing::RunResult;
using testing::slurp;

class CountersCli : public CliFixture {};

// The skycube lines of a text output, without its '#' comments.
std::string cube_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') out += line + '\n';
  return out;
}

TEST_F(CountersCli, MissingPapiLibraryIsReportedAndTheRunGoesOn) {
  const auto data = write("d.csv", "1,4\n4,1\n2,2\n3,3\n");
  const auto plain = dir_ / "plain.txt";
  const auto counted = dir_ / "counted.txt";
  ASSERT_EQ(
      run("skycube --input " + data.string() + " --template reference --output " + plain.string()).exit_code,
      0);

  ::setenv("SEXTANT_PAPI_LIBRARY", "/nonexistent/sextant-test/libpapi.so", 1);
  const auto r = run("skycube --input " + data.string() +
                     " --template mdmc --devices cpu --counters PAPI_TOT_INS --output " + counted.string());
  ::unsetenv("SEXTANT_PAPI_LIBRARY");

  ASSERT_EQ(r.exit_code, 0) << r.err;  // counters never fail a run
  const std::string why = build::has_papi
                              ? "counters unavailable: cannot load PAPI: /nonexistent/sextant-test/libpapi.so"
                              : "counters unavailable: this build of Sextant has no PAPI";
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_EQ(cube_lines(slurp(counted)), cube_lines(slurp(plain)));
  EXPECT_EQ(cube_lines(slurp(plain)), "1 1 0\n2 1 1\n3 3 0 1 2\n");  // (3,3) is dominated by (2,2)
}

// `sextant skycube` with counters, SEXTANT_PAPI_LIBRARY naming the fake libpapi (built with the
// tests) and, when given, SEXTANT_FAKE_PAPI_VERSION the version it answers.
class FakePapiCli : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    if (!build::has_papi) GTEST_SKIP() << "this build has no papi.h: counters are never loaded";
  }
  RunResult run_skycube(const std::string& counters, const char* version = nullptr,
                        const char* hardware_counters = nullptr) const {
    ::setenv("SEXTANT_PAPI_LIBRARY", SEXTANT_FAKE_PAPI, 1);
    if (version != nullptr) ::setenv("SEXTANT_FAKE_PAPI_VERSION", version, 1);
    if (hardware_counters != nullptr) ::setenv("SEXTANT_FAKE_PAPI_COUNTERS", hardware_counters, 1);
    RunResult r =
        run("skycube --generate anti:300:3:1 --template mdmc --devices cpu --threads 1 --counters " +
            counters + " --output -");
    ::unsetenv("SEXTANT_PAPI_LIBRARY");
    ::unsetenv("SEXTANT_FAKE_PAPI_VERSION");
    ::unsetenv("SEXTANT_FAKE_PAPI_COUNTERS");
    return r;
  }
};

TEST_F(FakePapiCli, CountsComeFromTheLibraryLoadedAtRunTime) {
  const auto r = run_skycube("PAPI_TOT_INS,PAPI_L2_TCM");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("counters unavailable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PAPI_L2_TCM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" 4242 "), std::string::npos) << r.err;  // the fake's count: PAPI_read was called
}

TEST_F(FakePapiCli, AnEventTheLibraryLacksIsNamed) {
  const auto r = run_skycube("PAPI_TOT_INS,FAKE_MISSING");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("counters unavailable: FAKE_MISSING: unknown event on this machine: fake PAPI error "
                       "(papi_avail and papi_native_avail list the events it has)"),
            std::string::npos)
      << r.err;
}

TEST_F(FakePapiCli, AMachineWithoutCountersIsToldApartFromAnUnknownEvent) {
  const auto r = run_skycube("PAPI_TOT_INS", nullptr, "0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find("counters unavailable: this machine exposes no hardware counters (PAPI_TOT_INS could not "
                 "be added: "),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("kernel.perf_event_paranoid <= 2"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unknown event"), std::string::npos) << r.err;
}

TEST_F(FakePapiCli, AnotherVersionOfTheLibraryIsAMismatchThatSaysBothVersions) {
  const auto r = run_skycube("PAPI_TOT_INS", "0x06020000");  // 6.2
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("counters unavailable: PAPI library version mismatch: " SEXTANT_FAKE_PAPI " is 6.2, "
                       "Sextant was built with papi.h "),
            std::string::npos)
      << r.err;
}

TEST_F(FakePapiCli, ALibraryThatRejectsThisVersionSaysSo) {
  const auto r = run_skycube("PAPI_TOT_INS", "-1");  // PAPI_EINVAL, as PAPI answers another major version
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("counters unavailable: PAPI_library_init (" SEXTANT_FAKE_PAPI "): fake PAPI error"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("a library of another version rejects it"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sextant
