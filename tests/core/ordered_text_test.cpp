#include "core/ordered_text.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace sextant {
namespace {

// A team whose workers run their tasks in reverse order, each on a thread of its own: the text
// must still come out in piece order.
class ReverseTeam {
 public:
  explicit ReverseTeam(int workers) : workers_(workers) {}
  int workers() const noexcept { return workers_; }
  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers_));
    for (int w = 0; w < workers_; ++w)
      threads.emplace_back([&, w] {
        try {
          for (std::size_t task = count; task-- > 0;)
            if (task % static_cast<std::size_t>(workers_) == static_cast<std::size_t>(w)) fn(task, w);
        } catch (...) {
          errors[static_cast<std::size_t>(w)] = std::current_exception();
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  int workers_;
};

std::string piece(std::size_t i) {
  return std::to_string(i * 7919 % 1000) + (i % 3 == 0 ? "\n" : ",");
}

TEST(OrderedText, SameBytesAsOnePassForAnyTeamAndBlock) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32},
                                  std::size_t{33}, std::size_t{1000}, std::size_t{5000}}) {
    std::string want;
    for (std::size_t i = 0; i < count; ++i) want += piece(i);
    for (const int workers : {1, 2, 3, 16})
      for (const std::size_t block : {std::size_t{1}, std::size_t{32}, std::size_t{4096}}) {
        ReverseTeam team(workers);
        std::ostringstream out;
        write_in_order(out, count, block, team, [](std::size_t begin, std::size_t end, std::string& text) {
          for (std::size_t i = begin; i < end; ++i) text += piece(i);
        });
        ASSERT_EQ(out.str(), want) << count << " pieces, " << workers << " workers, blocks of " << block;
      }
  }
}

// A team that says it has four workers but runs its tasks one after the other on the calling
// thread: nothing may wait for a block that no running task holds.
class OneThreadTeam {
 public:
  int workers() const noexcept { return 4; }
  template <class F>
  void run_tasks(std::size_t count, F&& fn) {
    for (std::size_t task = 0; task < count; ++task) fn(task, 0);
  }
};

TEST(OrderedText, TasksRunOneAfterTheOtherStillFinish) {
  std::string want;
  for (std::size_t i = 0; i < 3000; ++i) want += piece(i);
  OneThreadTeam team;
  std::ostringstream out;
  write_in_order(out, 3000, 7, team, [](std::size_t begin, std::size_t end, std::string& text) {
    for (std::size_t i = begin; i < end; ++i) text += piece(i);
  });
  EXPECT_EQ(out.str(), want);
}

// A block that throws stops every worker (none waits for it forever) and the error reaches the
// caller; the text written is a prefix of the whole.
TEST(OrderedText, AnErrorInOneBlockStopsTheOthers) {
  for (const int workers : {1, 2, 16}) {
    ReverseTeam team(workers);
    std::ostringstream out;
    EXPECT_THROW(write_in_order(out, 100000, 10, team,
                                [](std::size_t begin, std::size_t end, std::string& text) {
                                  if (begin == 5000) throw Error(ErrorKind::internal, "block 500");
                                  for (std::size_t i = begin; i < end; ++i) text += piece(i);
                                }),
                 Error);
    std::string whole;
    for (std::size_t i = 0; i < 5000; ++i) whole += piece(i);
    EXPECT_EQ(whole.compare(0, out.str().size(), out.str()), 0) << workers;
  }
}

// A TeamRef copied from a non-const TeamRef (as a member keeps the one it was given) copies the
// view, not a reference to that TeamRef: it still works once the original is gone.
TEST(OrderedText, ACopiedTeamRefOutlivesItsSource) {
  ReverseTeam team(3);
  std::optional<TeamRef> kept;
  {
    TeamRef source(team);
    kept.emplace(source);
  }
  std::ostringstream out;
  write_in_order(out, 100, 7, *kept, [](std::size_t begin, std::size_t end, std::string& text) {
    for (std::size_t i = begin; i < end; ++i) text += piece(i);
  });
  std::string want;
  for (std::size_t i = 0; i < 100; ++i) want += piece(i);
  EXPECT_EQ(out.str(), want);
  EXPECT_EQ(kept->workers(), 3);
}

TEST(OrderedText, AFailedStreamIsAnIoError) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  try {
    write_in_order(
        out, 10, 4, {}, [](std::size_t, std::size_t, std::string& text) { text += "x"; }, "writing it");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("writing it failed"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sextant
