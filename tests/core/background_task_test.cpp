// BackgroundTask: one task at a time on its own thread, its exception rethrown by wait, a running
// task waited for by the destructor.
#include "core/background_task.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace sextant {
namespace {

TEST(BackgroundTask, RunsEachTaskOnAnotherThreadAndWaitsForIt) {
  BackgroundTask task;
  for (int round = 0; round < 100; ++round) {
    std::thread::id ran;
    int value = 0;
    task.start([&] {
      ran = std::this_thread::get_id();
      value = round;
    });
    task.wait();
    EXPECT_NE(ran, std::this_thread::get_id());
    EXPECT_EQ(value, round);
  }
}

TEST(BackgroundTask, WaitRethrowsTheTasksExceptionOnceAndTheThreadGoesOn) {
  BackgroundTask task;
  task.start([] { throw std::runtime_error("bad piece"); });
  EXPECT_THROW(
      {
        try {
          task.wait();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "bad piece");
          throw;
        }
      },
      std::runtime_error);
  task.wait();  // nothing started since: no exception left
  bool ran = false;
  task.start([&] { ran = true; });
  task.wait();
  EXPECT_TRUE(ran);
}

TEST(BackgroundTask, FinishDropsTheExceptionAndTheDestructorWaitsForARunningTask) {
  std::atomic<bool> done{false};
  {
    BackgroundTask task;
    task.start([] { throw std::runtime_error("dropped"); });
    task.finish();
    task.start([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      done = true;
    });
  }  // waits
  EXPECT_TRUE(done);
}

TEST(BackgroundTask, NeverStartedCostsNoThread) {
  BackgroundTask task;
  task.wait();
  task.finish();
}

}  // namespace
}  // namespace sextant
