// `sextant skyline` end to end: the line `sextant skycube` writes for the same subspace (and that
// `sextant query` prints), --prefer, the calling-thread and scheduler paths, and its errors with
// their exit codes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/config.hpp"
#include "support/cli_fixture.hpp"

namespace sextant::testing {
namespace {

class SkylineCli : public CliFixture {};

// The line of `mask` in a skycube's text output.
std::string cube_line(const std::string& text, const std::string& mask) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(mask + " ", 0) == 0) return line + "\n";
  return {};
}

TEST_F(SkylineCli, SameLineAsTheSkycube) {
  const RunResult cube = run("skycube --generate ties:3:3000:4:7 --output -");
  ASSERT_EQ(cube.exit_code, 0) << cube.err;
  for (const auto& [columns, mask] :
       {std::pair{"0,2", "5"}, std::pair{"0,1,2,3", "15"}, std::pair{"3", "8"}}) {
    const RunResult one =
        run(std::string("skyline --generate ties:3:3000:4:7 --columns ") + columns + " --output -");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(one.out, cube_line(cube.out, mask)) << columns;
    const RunResult scheduled =
        run(std::string("skyline --generate ties:3:3000:4:7 --devices cpu --threads 1 --report --columns ") +
            columns + " --output -");
    ASSERT_EQ(scheduled.exit_code, 0) << scheduled.err;
    EXPECT_EQ(scheduled.out, one.out);
    EXPECT_NE(scheduled.err.find("per-device report"), std::string::npos) << scheduled.err;
  }
  const RunResult all = run("skyline --generate ties:3:3000:4:7 --output -");
  EXPECT_EQ(all.out, cube_line(cube.out, "15"));
}

TEST_F(SkylineCli, PreferMaxAndFiles) {
  const std::string pts = write("pts.csv", "1,1\n2,2\n2,2\n0,3\n").string();
  const RunResult min = run("skyline --input " + pts + " --output -");
  EXPECT_EQ(min.out, "3 2 0 3\n") << min.err;
  const RunResult max =
      run("skyline --input " + pts + " --prefer max,max --output " + (dir_ / "out.txt").string());
  ASSERT_EQ(max.exit_code, 0) << max.err;
  EXPECT_EQ(slurp(dir_ / "out.txt"), "3 3 1 2 3\n");  // both copies of (2, 2)
}

TEST_F(SkylineCli, Errors) {
  const std::string nan = write("nan.csv", "1,1\n2,nan\n").string();
  EXPECT_EQ(run("skyline --input " + nan + " --output -").exit_code, 2);
  const std::string ok = write("ok.csv", "1,1\n2,2\n").string();
  const RunResult column = run("skyline --input " + ok + " --columns 0,2 --output -");
  EXPECT_EQ(column.exit_code, 2);
  EXPECT_NE(column.err.find("--columns"), std::string::npos) << column.err;
  EXPECT_EQ(run("skyline --input " + (dir_ / "missing.csv").string() + " --output -").exit_code, 3);
  EXPECT_EQ(run("skyline --input " + ok).exit_code, 2);  // no --output
  if (!build::has_cuda) {
    EXPECT_EQ(run("skyline --input " + ok + " --devices gpu0 --output -").exit_code, 4);
  }
}

}  // namespace
}  // namespace sextant::testing
