// One task at a time on a persistent thread of its own: the caller starts a task, does its own
// work meanwhile, and waits for it (the task's exception is rethrown by wait). Used to overlap a
// serial host step with a run on the devices (the Matcher prepares the next piece of a batch while
// the devices match the current one). The destructor waits for a running task.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace sextant {

class BackgroundTask {
 public:
  BackgroundTask() = default;
  ~BackgroundTask() {
    if (!thread_.joinable()) return;
    finish();
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
  }  // jthread joins
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // Runs `task` on the background thread (started on first use). One task at a time: wait first.
  void start(std::function<void()> task) {
    if (!thread_.joinable()) thread_ = std::jthread([this] { loop(); });
    {
      std::lock_guard lock(mutex_);
      task_ = std::move(task);
      error_ = nullptr;
      busy_ = true;
    }
    wake_.notify_all();
  }

  // Waits for the started task; rethrows its exception.
  void wait() {
    finish();
    std::exception_ptr error;
    {
      std::lock_guard lock(mutex_);
      error = std::exchange(error_, nullptr);
    }
    if (error) std::rethrow_exception(error);
  }

  // Waits for the started task and drops its exception (unwinding after another failure).
  void finish() noexcept {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return !busy_; });
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return busy_ || stop_; });
      if (!busy_) return;  // stop_
      std::function<void()> task = std::move(task_);
      lock.unlock();
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      error_ = error;
      busy_ = false;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::function<void()> task_;
  std::exception_ptr error_;
  bool busy_ = false, stop_ = false;
  std::jthread thread_;  // last: joined before the members it uses go
};

}  // namespace sextant
