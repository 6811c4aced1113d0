// `sextant generate-pubsub` and `sextant match` end to end: generated workloads (text and binary)
// matched on the CPU in batches and one event at a time, compared event for event with the
// brute-force oracle; bad input (line and column, exit codes, nothing written); GPUs this build or
// machine lacks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "datagen/pubsub_text.hpp"
#include "tests/gpu/gpu_test_support.hpp"
#include "tests/support/brute_force_matcher.hpp"
#include "tests/support/cli_fixture.hpp"

namespace sextant::testing {
namespace {

using ::testing::HasSubstr;
using namespace sextant::matching;

class MatchCli : public CliFixture {
 protected:
  // The expected CSV: the oracle over the files' filters and events.
  std::string oracle_csv(const std::string& subs, const std::string& events, bool filters) const {
    const std::vector<Filter> fs = datagen::read_filters((dir_ / subs).string()).filters();
    const EventBatch es = datagen::read_events((dir_ / events).string());
    std::string out = filters ? "event,interfaces,filters\n" : "event,interfaces\n";
    for (std::size_t i = 0; i < es.size(); ++i) {
      const OracleMatch m = oracle_match(fs, es.event(i));
      out += std::to_string(es.ids[i]) + ",";
      for (std::size_t k = 0; k < m.interfaces.size(); ++k) {
        if (k) out += ' ';
        out += std::to_string(m.interfaces[k]);
      }
      if (filters) {
        out += ",";
        for (std::size_t k = 0; k < m.filters.size(); ++k) {
          if (k) out += ' ';
          out += std::to_string(m.filters[k]);
        }
      }
      out += "\n";
    }
    return out;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
};

TEST_F(MatchCli, GeneratedWorkloadMatchesTheOracleInEveryModeAndFormat) {
  const std::string gen =
      " --interfaces 7 --filters 40-60 --names 12 --values 6 --event-count 300 --seed 9 --constraints 1-3 "
      "--attributes 2-8 "
      "--numeric-share 0.6 --ops '=:1,!=:1,<:1,<=:1,>:1,>=:1' --string-ops "
      "'=:1,!=:1,prefix:1,suffix:1,substring:1'";
  ASSERT_EQ(
      run("generate-pubsub --subscriptions " + path("s.txt") + " --events " + path("e.txt") + gen).exit_code,
      0);
  ASSERT_EQ(
      run("generate-pubsub --subscriptions " + path("s.bin") + " --events " + path("e.bin") + gen).exit_code,
      0);
  const std::string want = oracle_csv("s.txt", "e.txt", true);
  ASSERT_EQ(want, oracle_csv("s.bin", "e.bin", true)) << "text and binary hold the same workload";
  std::istringstream rows(want);
  std::string row;
  int matched = 0;
  while (std::getline(rows, row)) matched += row.find(',') + 1 < row.size() && row[row.find(',') + 1] != ',';
  EXPECT_GT(matched, 100) << "the workload should match often enough to test something";
  for (const std::string mode : {"", " --batch 1", " --batch 7", " --threads 1"}) {
    for (const std::string fmt : {"txt", "bin"}) {
      const RunResult r = run("match --subscriptions " + path("s." + fmt) + " --events " + path("e." + fmt) +
                              " --filters --output " + path("m.csv") + mode);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(slurp(dir_ / "m.csv"), want) << mode << " " << fmt;
      EXPECT_THAT(r.err, HasSubstr("events/s"));
    }
  }
  const RunResult plain =
      run("match --subscriptions " + path("s.txt") + " --events " + path("e.txt") + " --output -");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, oracle_csv("s.txt", "e.txt", false));
}

TEST_F(MatchCli, StringsWithQuotesAndBytesThroughEscapes) {
  write("s.txt",
        "filter 1 5: s = \"say \\\"hi\\\"\"\n"
        "filter 2 6: s prefix \"\\xff\\x00\"\n"
        "filter 3 7: s substring \"\\\\\", n >= 2.5\n");
  write("e.txt",
        "event 10: s = \"say \\\"hi\\\"\"\n"
        "event 11: s = \"\\xff\\x00z\"\n"
        "event 12: s = \"a\\\\b\", n = 3\n"
        "event 13: s = \"a\\\\b\", n = 2\n");
  const RunResult r =
      run("match --subscriptions " + path("s.txt") + " --events " + path("e.txt") + " --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "event,interfaces\n10,5\n11,6\n12,7\n13,\n");
}

TEST_F(MatchCli, BadInputNamesLineAndColumnAndWritesNothing) {
  write("e.txt", "event: a = 1\n");
  write("old.csv", "keep me\n");
  const auto bad = [&](const std::string& subs, const std::string& where) {
    write("s.txt", subs);
    const RunResult r = run("match --subscriptions " + path("s.txt") + " --events " + path("e.txt") +
                            " --output " + path("old.csv"));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr(where)) << subs;
    EXPECT_EQ(slurp(dir_ / "old.csv"), "keep me\n") << "a failed run leaves the old output";
  };
  bad("filter 1 2: a ~ 1\n", "s.txt:1:15: expected an operator");
  bad("filter 1 2: a = 1\nfilter 2 2: price > \"abc\"\n", "s.txt:2:21: type mismatch");
  bad("filter 1 2:   \n", "s.txt:1:15: an empty filter");
  bad("filter 1 2: a = 1\nfilter 1 3: a = 2\n", "s.txt:2:8: duplicate filter id 1");
  bad("filter 1 2: a = \"x\xc3\"\n", "s.txt:1:19: byte 0xc3 is not valid UTF-8");
  bad("garbage\n", "s.txt:1:1: expected 'filter");
  write("s.txt", "filter 1 2: a = 1\n");
  write("e2.txt", "event: a = 1\nevent: b = \"unterminated\n");
  const RunResult r = run("match --subscriptions " + path("s.txt") + " --events " + path("e2.txt") +
                          " --output " + path("new.csv"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("e2.txt:2:12: a string without its closing quote"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new.csv"));
  const RunResult missing =
      run("match --subscriptions " + path("nope.txt") + " --events " + path("e.txt") + " --output -");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_THAT(missing.err, HasSubstr("nope.txt"));
  const RunResult badarg = run("generate-pubsub --subscriptions - --events - --constraints 5-3");
  EXPECT_EQ(badarg.exit_code, 2);
  EXPECT_THAT(badarg.err, HasSubstr("--constraints = '5-3'"));
}

TEST_F(MatchCli, GpusThisBuildOrMachineLacksExit4) {
  if (gpu_count() > 0) GTEST_SKIP() << "this machine has a GPU";
  write("s.txt", "filter 1 2: a = 1\n");
  write("e.txt", "event: a = 1\n");
  const RunResult r = run("match --subscriptions " + path("s.txt") + " --events " + path("e.txt") +
                          " --devices gpu0 --output -");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.err, HasSubstr(build::has_cuda ? "no GPU" : "no CUDA support"));
}

}  // namespace
}  // namespace sextant::testing
