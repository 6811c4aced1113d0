// The output-file contract (core/atomic_file.hpp, docs/output-files.md) through the CLI:
// standard output, special files, full disks, and interruptions mid-write.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "support/cli_fixture.hpp"

namespace sextant::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

using OutputFileCli = CliFixture;

TEST_F(OutputFileCli, DashIsStandardOutputForEveryCommand) {
  const RunResult r = run("generate --dist indep --n 4 --d 2 --output -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "-"));
  const RunResult s = run("generate-stream --n 3 --output -");
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

TEST_F(OutputFileCli, EmptyOutputPathIsABadArgument) {
  const RunResult r = run("generate --dist indep --n 4 --d 2 --output ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("output path is empty"), std::string::npos) << r.err;
}

TEST_F(OutputFileCli, FullDiskIsAnIoErrorNamingTheOutput) {
  if (!fs::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::string cmd : {"generate --dist indep --n 1000 --d 3 --output /dev/full",
                                "skycube --generate indep:2000:4 --output /dev/full",
                                "skycube --generate indep:2000:4 --format binary --output /dev/full",
                                "generate-stream --n 1000 --output /dev/full"}) {
    const RunResult r = run(cmd);
    EXPECT_EQ(r.exit_code, 3) << cmd;
    EXPECT_NE(r.err.find("/dev/full: write failed: No space left on device"), std::string::npos)
        << cmd << "\n"
        << r.err;
  }
}

TEST_F(OutputFileCli, PrivateNullDeviceStaysADevice) {
  const auto node = dir_ / "null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  const RunResult r = run("skycube --generate indep:500:3 --output " + node.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_character_file(node));
}

// No machine here has 298 GiB: the CLI must say so at once, with the size, overcommit or not (with
// overcommit the allocation itself succeeds; the size is checked against memory and swap first).
TEST_F(OutputFileCli, OutOfMemoryNamesTheSize) {
  const char* old = std::getenv("ASAN_OPTIONS");
  const std::string saved = old ? old : "";
  ::setenv("ASAN_OPTIONS", (saved + (saved.empty() ? "" : ":") + "allocator_may_return_null=1").c_str(), 1);
  const RunResult r = run("generate --dist indep --n 4000000000 --d 20 --output out.csv");
  if (old)
    ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
  else
    ::unsetenv("ASAN_OPTIONS");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("out of host memory: an allocation of 298.02 GiB failed (this machine has"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
}

// Starts the CLI writing a large output over out.csv, waits until it holds its temporary
// (an open file in the scratch directory), sends `sig` and checks the directory afterwards.
class InterruptedOutput : public CliFixture, public ::testing::WithParamInterface<std::tuple<int, bool>> {};

bool holds_a_file_in(pid_t pid, const fs::path& dir) {
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const auto target = fs::read_symlink(fd.path(), ec);
    if (!ec && target.string().rfind(dir.string() + "/", 0) == 0) return true;
  }
  return false;
}

TEST_P(InterruptedOutput, LeavesTheOldFileAndNothingElse) {
  const auto [sig, named] = GetParam();
  const auto out = dir_ / "out.csv";
  write("out.csv", "old\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (named) ::setenv("SEXTANT_OUTPUT_NO_TMPFILE", "1", 1);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(SEXTANT_CLI_PATH, "sextant", "generate", "--dist", "indep", "--n", "3000000", "--d", "8",
            "--output", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool writing = false;
  while (!(writing = holds_a_file_in(pid, dir_)) && std::chrono::steady_clock::now() < deadline &&
         ::waitpid(pid, nullptr, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  ASSERT_TRUE(writing) << "the CLI never opened its output";
  ::kill(pid, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "finished before the signal: make the output larger";
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"out.csv"});
  EXPECT_EQ(slurp(out), "old\n");
}

// SIGKILL cannot be caught: only the unnamed temporary (O_TMPFILE) leaves nothing then.
INSTANTIATE_TEST_SUITE_P(Signals, InterruptedOutput,
                         ::testing::Values(std::tuple{SIGINT, false}, std::tuple{SIGINT, true},
                                           std::tuple{SIGTERM, false}, std::tuple{SIGTERM, true},
                                           std::tuple{SIGKILL, false}),
                         [](const auto& test) {
                           const int sig = std::get<0>(test.param);
                           const std::string name = sig == SIGINT    ? "sigint"
                                                    : sig == SIGTERM ? "sigterm"
                                                                     : "sigkill";
                           return name + (std::get<1>(test.param) ? "_named" : "_unnamed");
                         });

}  // namespace
}  // namespace sextant::testing
