// End-to-end tests of `sextant pipeline run|profile|plan`: hand-known results (the 4 solutions of
// 6 queens, 92 of 8, a two-line Taxi file), the same output on every sizing rule and plan, and every
// bad input exiting non-zero with a message naming the problem and no output file left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "core/config.hpp"
#include "support/cli_fixture.hpp"

namespace sextant {
namespace {

namespace fs = std::filesystem;
using testing::CliFixture;
using testing::slurp;

class PipelineCliTest : public CliFixture {};

TEST_F(PipelineCliTest, SixQueensHasFourSolutionsInOrder) {
  const auto r = run("pipeline run --app nqueens --n 6 --order --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1 3 5 0 2 4\n2 5 1 4 0 3\n3 0 4 1 5 2\n4 2 0 5 3 1\n");
  EXPECT_NE(r.err.find("-> 4 items"), std::string::npos) << r.err;
  const auto c = run("pipeline run --app nqueens --n 8 --count-only --merge auto --output -");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "solutions 92\n");
}

TEST_F(PipelineCliTest, EveryRuleAndPlanGivesTheSameOutput) {
  const auto base = run("pipeline run --app synthetic --sources 2000 --order --output -");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_FALSE(base.out.empty());
  for (const char* rule : {"equal", "mercator", "sqrt"})
    for (const char* merge : {"none", "1+2,3,4", "1+2+3+4", "auto"}) {
      const auto r = run(std::string("pipeline run --app synthetic --sources 2000 --sizing ") + rule +
                         " --merge " + merge + " --output -");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, base.out) << rule << " " << merge;
    }
  const auto blast =
      run("pipeline run --app blast --db-length 100000 --query-length 2000 --copies 10 --copy-length 200 "
          "--output " +
          (dir_ / "hits.csv").string());
  ASSERT_EQ(blast.exit_code, 0) << blast.err;
  const std::string hits = slurp(dir_ / "hits.csv");
  EXPECT_EQ(hits.rfind("db_begin,query_begin,length,score\n", 0), 0U);
  EXPECT_GT(std::count(hits.begin(), hits.end(), '\n'), 5);
}

TEST_F(PipelineCliTest, TaxiAggregatesPerLine) {
  const auto in =
      write("trips.txt", "10,LINESTRING(-73.5 40.25, -73.75 40.5, -73.25 40.125)\n11,LINESTRING(1 2, 3 4)\n");
  const auto r = run("pipeline run --app taxi --input " + in.string() + " --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "line,pairs,min_x,min_y,max_x,max_y\n1,3,-73.75,40.125,-73.25,40.5\n2,2,1,2,3,4\n");
}

TEST_F(PipelineCliTest, ProfileAndPlan) {
  const auto p = run("pipeline profile --app nqueens --n 9 --output -");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("place 1"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("node switches"), std::string::npos) << p.out;
  const auto csv = run("pipeline profile --app synthetic --sources 3000 --format csv --output -");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("node,name,u,inputs,outputs,vectors,g,m,t,p,time_unit\n1,gain 1,1,3000,", 0), 0U)
      << csv.out;
  const auto plan = run("pipeline plan --app synthetic --sources 3000 --queue-budget 32768 --output -");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  for (const char* want : {"equal", "mercator", "sqrt", "merge strategies", "1,2,3,4", "1+2+3+4"})
    EXPECT_NE(plan.out.find(want), std::string::npos) << want << "\n" << plan.out;
}

TEST_F(PipelineCliTest, BadInputExitsNonZeroAndWritesNothing) {
  const auto bad = write("bad.txt", "1,LINESTRING(1 2, 3 4)\n2,LINESTRING(1 2, 3 x)\n");
  const auto frame = write("frame.txt", "1,LINESTRING(1 2)\nhello\n");
  const auto empty = write("empty.txt", "");
  const std::string out = (dir_ / "out.txt").string();
  const struct {
    std::string args;
    int code;
    const char* message;
  } cases[] = {
      {"pipeline run --app quux --output " + out, 2, "--app = 'quux': unknown application"},
      {"pipeline walk --app taxi --output " + out, 2, "unknown subcommand"},
      {"pipeline run --app taxi --input " + bad.string() + " --output " + out, 2,
       "bad.txt:2:18: malformed coordinate pair"},
      {"pipeline run --app taxi --input " + frame.string() + " --output " + out, 2,
       "frame.txt:2:1: expected a trip id"},
      {"pipeline run --app taxi --input " + empty.string() + " --output " + out, 2, "empty.txt: no lines"},
      {"pipeline run --app taxi --input " + (dir_ / "missing.txt").string() + " --output " + out, 3,
       "missing.txt"},
      {"pipeline run --app synthetic --sources 0 --output " + out, 2, "input stream is empty"},
      {"pipeline run --app synthetic --sources 10 --gains 1,2 --output " + out, 2, "--gains"},
      {"pipeline run --app nqueens --n 8 --queue-budget 100 --output " + out, 2, "minimum safe queue sizes"},
      {"pipeline run --app nqueens --n 8 --merge 1,3 --output " + out, 2, "--merge"},
      {"pipeline run --app nqueens --n 21 --output " + out, 2, "--n"},
      {"pipeline run --app blast --n 8 --output " + out, 2, "only with --app nqueens"},
      {"pipeline run --app nqueens --n 8 --sizing cubic --output " + out, 2, "equal, mercator or sqrt"},
      {"pipeline run --app nqueens --n 8 --lanes 12 --output " + out, 2, "--lanes"},
      {"pipeline run --app nqueens --n 8", 2, "--output"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
  // A GPU where there is none, or no CUDA: unsupported (exit 4).
  if (!build::has_cuda || run("info").out.find("gpu0:") == std::string::npos) {
    const auto r = run("pipeline run --app nqueens --n 6 --devices gpu0 --output " + out);
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("gpu0"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
}  // namespace sextant
