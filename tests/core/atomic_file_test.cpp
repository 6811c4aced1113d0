#include "core/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "tests/support/test_directory.hpp"

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
    dir_ = sextant::testing::test_directory("sextant-atomic");
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

// A private directory's listing, to prove nothing was left behind.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void expect_io_error_naming(const std::function<void()>& f, const std::string& name,
                            const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error for " << name;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(name + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

// The same cases with the unnamed temporary (O_TMPFILE) and with the named fallback.
class AtomicFileBothPaths : public AtomicFileTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    AtomicFileTest::SetUp();
    if (GetParam()) ::setenv("SEXTANT_OUTPUT_NO_TMPFILE", "1", 1);
  }
  void TearDown() override {
    ::unsetenv("SEXTANT_OUTPUT_NO_TMPFILE");
    AtomicFileTest::TearDown();
  }
};

TEST_P(AtomicFileBothPaths, ReplacesAllOrNothing) {
  const auto target = dir_ / "out.txt";
  std::ofstream(target) << "old";
  {
    AtomicFile f(target.string());
    f.stream() << std::string(3 << 20, 'x');  // several buffers' worth
    EXPECT_EQ(slurp(target), "old");
  }
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"out.txt"});
  {
    AtomicFile f(target.string());
    f.stream() << "new";
    f.commit();
  }
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"out.txt"});
}

TEST_P(AtomicFileBothPaths, KeepsThePermissionsOfTheFileItReplaces) {
  const auto target = dir_ / "out.txt";
  std::ofstream(target) << "old";
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  AtomicFile f(target.string());
  f.stream() << "new";
  f.commit();
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_P(AtomicFileBothPaths, FollowsSymbolicLinks) {
  fs::create_directories(dir_ / "real");
  std::ofstream(dir_ / "real" / "target.txt") << "old";
  fs::create_symlink("real/target.txt", dir_ / "link.txt");
  fs::create_symlink("link.txt", dir_ / "link2.txt");         // a chain
  fs::create_symlink("real/new.txt", dir_ / "dangling.txt");  // a target yet to be created
  for (const char* name : {"link2.txt", "dangling.txt"}) {
    AtomicFile f((dir_ / name).string());
    f.stream() << name;
    f.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link2.txt"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.txt"));
  EXPECT_EQ(slurp(dir_ / "real" / "target.txt"), "link2.txt");
  EXPECT_EQ(slurp(dir_ / "real" / "new.txt"), "dangling.txt");
  EXPECT_EQ(listing(dir_ / "real"), (std::vector<std::string>{"new.txt", "target.txt"}));
}

INSTANTIATE_TEST_SUITE_P(Temporaries, AtomicFileBothPaths, ::testing::Values(false, true),
                         [](const auto& test) { return test.param ? "named" : "unnamed"; });

TEST_F(AtomicFileTest, SymbolicLinkLoopIsAnIoError) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  const std::string a = (dir_ / "a").string();
  expect_io_error_naming([&] { AtomicFile f(a); }, a, "symbolic links");
}

TEST_F(AtomicFileTest, WritesIntoAFifoDirectly) {
  const auto fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  {
    AtomicFile f(fifo.string());
    f.stream() << "through the pipe";
    f.commit();
  }
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"fifo"});
}

TEST_F(AtomicFileTest, WritesIntoAUnixSocket) {
  const auto path = dir_ / "sock";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.string().size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  std::string received;
  std::thread server([&] {
    const int c = ::accept(listener, nullptr, nullptr);
    char buf[256];
    for (ssize_t n; (n = ::read(c, buf, sizeof buf)) > 0;) received.append(buf, static_cast<std::size_t>(n));
    ::close(c);
  });
  {
    AtomicFile f(path.string());
    f.stream() << "over the socket";
    f.commit();
  }
  server.join();
  ::close(listener);
  EXPECT_EQ(received, "over the socket");
  EXPECT_TRUE(fs::is_socket(path));
}

// A private null device (root only): a character device must stay one. Never /dev/null
// itself, which a broken build would replace.
TEST_F(AtomicFileTest, CharacterDeviceStaysADevice) {
  const auto node = dir_ / "null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  AtomicFile f(node.string());
  f.stream() << "discarded";
  f.commit();
  EXPECT_TRUE(fs::is_character_file(node));
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"null"});
}

TEST_F(AtomicFileTest, FullDeviceIsAnIoErrorNamingTheOutput) {
  if (!fs::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full";
  expect_io_error_naming(
      [] {
        AtomicFile f("/dev/full");
        f.stream() << "x";
        f.commit();
      },
      "/dev/full", "No space left on device");
  expect_io_error_naming(  // a large write fails inside the writer, before commit
      [] {
        AtomicFile f("/dev/full");
        f.stream() << std::string(4 << 20, 'x');
      },
      "/dev/full", "No space left on device");
}

TEST_F(AtomicFileTest, DirectoryAndEmptyPathAreRefused) {
  const std::string dir = dir_.string();
  expect_io_error_naming([&] { AtomicFile f(dir); }, dir, "is a directory");
  try {
    AtomicFile f("");
    ADD_FAILURE() << "accepted an empty path";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos);
  }
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
