// Writes bytes into a new FIFO once, as a second process would, for tests of readers that must
// open their input exactly once. A reader that opens the FIFO a second time would wait for a
// writer forever: after 20 s the writer unblocks it with empty write ends, so such a bug fails
// the test (reopened() is true, the reader sees no data) instead of hanging it.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace sextant::testing {

class FifoWriter {
 public:
  FifoWriter(const std::string& path, std::string bytes) : path_(path) {
    std::signal(SIGPIPE, SIG_IGN);  // a reader that stops early must not kill the test
    if (::mkfifo(path.c_str(), 0600) != 0) ADD_FAILURE() << "mkfifo " << path << ": " << std::strerror(errno);
    thread_ = std::thread([this, bytes = std::move(bytes)] {
      {
        std::ofstream out(path_, std::ios::binary);  // waits for the reader to open
        opened_ = true;
        out << bytes;
      }
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!done_ && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      while (!done_) {
        reopened_ = true;
        const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  FifoWriter(const FifoWriter&) = delete;
  FifoWriter& operator=(const FifoWriter&) = delete;
  ~FifoWriter() { stop(); }

  // Call after the reader finished: true when it had to be unblocked (it opened the FIFO twice).
  bool reopened() {
    stop();
    return reopened_;
  }

 private:
  void stop() {
    done_ = true;
    if (!thread_.joinable()) return;
    // A reader that never opened the FIFO (it failed first) leaves the writer waiting in its
    // open: a non-blocking read end releases it.
    const int fd = opened_ ? -1 : ::open(path_.c_str(), O_RDONLY | O_NONBLOCK);
    thread_.join();
    if (fd >= 0) ::close(fd);
  }

  std::string path_;
  std::atomic<bool> done_ = false;
  std::atomic<bool> reopened_ = false;
  std::atomic<bool> opened_ = false;
  std::thread thread_;
};

}  // namespace sextant::testing
