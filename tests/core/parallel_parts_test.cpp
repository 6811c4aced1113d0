// ParallelParts: every part run exactly once per step, on the caller and the helpers, the lowest
// failing part's exception rethrown after all parts ran, and steps one after another.
#include "core/parallel_parts.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sextant {
namespace {

TEST(ParallelParts, EveryPartRunsOnceInEveryStep) {
  for (const int helpers : {0, 1, 3, 8}) {
    ParallelParts threads(helpers);
    EXPECT_EQ(threads.helpers(), helpers);
    for (int step = 0; step < 200; ++step) {
      const int parts = step % 13;
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(parts));
      threads.run(parts, [&](int p) { runs[static_cast<std::size_t>(p)].fetch_add(1); });
      for (int p = 0; p < parts; ++p)
        EXPECT_EQ(runs[static_cast<std::size_t>(p)].load(), 1) << helpers << " " << p;
    }
  }
}

TEST(ParallelParts, HelpersTakePartsBesideTheCaller) {
  ParallelParts threads(3);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> waiting{0};
  // Each part waits until all four have started: only four threads at once can finish the step.
  threads.run(4, [&](int) {
    {
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    }
    waiting.fetch_add(1);
    while (waiting.load() < 4) std::this_thread::yield();
  });
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_TRUE(seen.contains(std::this_thread::get_id()));
}

TEST(ParallelParts, TheLowestFailingPartIsRethrownAfterEveryPartRan) {
  for (const int helpers : {0, 2}) {
    ParallelParts threads(helpers);
    std::atomic<int> ran{0};
    try {
      threads.run(6, [&](int p) {
        ran.fetch_add(1);
        if (p == 4 || p == 2) throw std::runtime_error("part " + std::to_string(p));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "part 2");
    }
    EXPECT_EQ(ran.load(), 6);
    std::atomic<int> after{0};
    threads.run(5, [&](int) { after.fetch_add(1); });  // the pool goes on
    EXPECT_EQ(after.load(), 5);
  }
}

}  // namespace
}  // namespace sextant
