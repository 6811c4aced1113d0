// Runs the `sextant` executable in a scratch directory of its own: exit code, stdout and
// stderr of each call, and small input files written next to it. Removed after each test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/test_directory.hpp"

namespace sextant::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_directory("sextant-cli");
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RunResult run(const std::string& args) const { return run_in_env("", args); }

  // `env`: shell assignments put before the command, e.g. "TMPDIR=/some/dir ".
  RunResult run_in_env(const std::string& env, const std::string& args) const {
    const auto out = dir_ / "stdout.txt";
    const auto err = dir_ / "stderr.txt";
    const std::string cmd =
        env + std::string(SEXTANT_CLI_PATH) + " " + args + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    std::filesystem::remove(out);
    std::filesystem::remove(err);
    return r;
  }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  std::filesystem::path dir_;
};

}  // namespace sextant::testing
