// The parts of one host step run by the calling thread and a few helper threads of its own. For
// a serial step between device runs (the Matcher's event preparation), when the cores that would
// otherwise wait for it are idle: run(parts, fn) calls fn(part) once for every part of [0, parts),
// on any of the threads, and returns when every part has returned. An exception of a part is
// rethrown after every part has run (the lowest part's when several throw). The helpers sleep
// between steps, never spin: between steps the cores belong to the scheduler's workers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sextant {

class ParallelParts {
 public:
  // `helpers` threads beside the caller (0: every part on the caller), started on first use.
  explicit ParallelParts(int helpers = 0) : helpers_(helpers > 0 ? helpers : 0) {}
  ~ParallelParts() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
  }  // jthreads join
  ParallelParts(const ParallelParts&) = delete;
  ParallelParts& operator=(const ParallelParts&) = delete;

  int helpers() const noexcept { return helpers_; }

  void run(int parts, const std::function<void(int)>& fn) {
    if (parts <= 1 || helpers_ == 0) {
      std::exception_ptr error;
      for (int p = 0; p < parts; ++p) {
        try {
          fn(p);
        } catch (...) {
          if (!error) error = std::current_exception();
        }
      }
      if (error) std::rethrow_exception(error);
      return;
    }
    if (threads_.empty())
      for (int h = 0; h < helpers_; ++h) threads_.emplace_back([this] { help(); });
    {
      std::lock_guard lock(mutex_);
      fn_ = &fn;
      parts_ = parts;
      next_ = done_ = 0;
      errors_.assign(static_cast<std::size_t>(parts), nullptr);
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::exception_ptr error;
    {
      std::unique_lock lock(mutex_);
      finished_.wait(lock, [this] { return done_ == parts_; });
      fn_ = nullptr;
      for (const std::exception_ptr& e : errors_)
        if (e) {
          error = e;
          break;
        }
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  // Takes parts of the current step until none is left.
  void work() {
    std::unique_lock lock(mutex_);
    while (next_ < parts_) {
      const int part = next_++;
      const std::function<void(int)>& fn = *fn_;  // stays until every part is done
      lock.unlock();
      std::exception_ptr error;
      try {
        fn(part);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      errors_[static_cast<std::size_t>(part)] = error;
      if (++done_ == parts_) finished_.notify_all();
    }
  }

  void help() {
    std::uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      work();  // a helper woken late finds no part left, or joins a later step: both are safe
    }
  }

  int helpers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(int)>* fn_ = nullptr;
  int parts_ = 0, next_ = 0, done_ = 0;
  std::vector<std::exception_ptr> errors_;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  std::vector<std::jthread> threads_;  // last: joined before the members they use go
};

}  // namespace sextant
