// Progress on stderr for work that runs longer than a second: a line every two seconds
// naming the task and the time so far, silent for short runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace sextant::cli {

class Progress {
 public:
  explicit Progress(std::string what)
      : what_(std::move(what)), thread_([this](std::stop_token stop) { tick(stop); }) {}
  ~Progress() {
    thread_.request_stop();
    cv_.notify_all();
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  void tick(const std::stop_token& stop) {
    const auto start = std::chrono::steady_clock::now();
    auto next = start + std::chrono::seconds(1);
    std::unique_lock lock(mutex_);
    while (!cv_.wait_until(lock, stop, next, [] { return false; })) {
      if (stop.stop_requested()) return;
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "sextant: %s ... %.0f s\n", what_.c_str(), s);
      next += std::chrono::seconds(2);
    }
  }

  std::string what_;
  std::mutex mutex_;
  std::condition_variable_any cv_;
  std::jthread thread_;
};

}  // namespace sextant::cli
