#include "core/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace sextant {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sextant-atomic-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFileTest, CommitReplacesTarget) {
  const auto target = dir_ / "out.txt";
  std::ofstream(target) << "old";
  {
    AtomicFile f(target.string());
    f.stream() << "new";
    EXPECT_EQ(slurp(target), "old");  // not visible before commit
    f.commit();
  }
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, AbandonedWriteLeavesNothing) {
  const auto target = dir_ / "out.txt";
  {
    AtomicFile f(target.string());
    f.stream() << "partial";
  }
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(AtomicFileTest, UnwritableDirectoryIsAnIoError) {
  try {
    AtomicFile f((dir_ / "missing" / "out.txt").string());
    ADD_FAILURE() << "opened a file in a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("out.txt"), std::string::npos);
  }
}

}  // namespace
}  // namespace sextant
