#include "scheduler/deque.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "scheduler_test_support.hpp"

namespace sextant::scheduler::detail {
namespace {

using Deque = ChaseLevDeque<std::uint64_t>;

TEST(ChaseLevDeque, OwnerIsLifoThievesAreFifo) {
  Deque d(8);
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(d.push(i));
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(d.pop(), 3u);
  const auto s = d.steal();
  EXPECT_EQ(s.status, Deque::Steal::taken);
  EXPECT_EQ(s.value, 0u);
  EXPECT_EQ(d.pop(), 2u);
  EXPECT_EQ(d.pop(), 1u);
  EXPECT_EQ(d.pop(), std::nullopt);
  EXPECT_EQ(d.steal().status, Deque::Steal::empty);
  EXPECT_EQ(d.size(), 0u);
}

TEST(ChaseLevDeque, IsBoundedAndReusesSlots) {
  Deque d(4);
  EXPECT_EQ(d.capacity(), 4u);
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(d.push(i));
  EXPECT_FALSE(d.push(99));
  EXPECT_EQ(d.steal().value, 0u);
  EXPECT_TRUE(d.push(4));  // the stolen slot is free again
  for (std::uint64_t expected = 4; expected >= 1; --expected) EXPECT_EQ(d.pop(), expected);
}

TEST(ChaseLevDeque, StealIfDeclinesWithoutTaking) {
  Deque d(4);
  d.push(7);
  EXPECT_EQ(d.steal_if([](std::uint64_t v) { return v != 7; }).status, Deque::Steal::declined);
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.steal_if([](std::uint64_t v) { return v == 7; }).value, 7u);
}

// The owner pops while thieves steal: every element is taken exactly once.
TEST(ChaseLevDeque, ConcurrentPopAndStealTakeEachElementOnce) {
  constexpr std::size_t n = 200'000;
  Deque d(n);
  for (std::uint64_t i = 0; i < n; ++i) d.push(i);
  testing::Hits hits(n);
  std::atomic<bool> go{false};
  std::vector<std::thread> thieves;
  for (int t = 0; t < 3; ++t)
    thieves.emplace_back([&] {
      while (!go.load()) {
      }
      for (;;) {
        const auto s = d.steal();
        if (s.status == Deque::Steal::taken) hits.add(s.value);
        if (s.status == Deque::Steal::empty) break;
      }
    });
  go = true;
  while (const auto v = d.pop()) hits.add(*v);
  for (auto& t : thieves) t.join();
  EXPECT_EQ(hits.wrong(), 0u);
}

// Pushes interleaved with pops and steals (the owner refills while thieves run).
TEST(ChaseLevDeque, ConcurrentPushPopStealKeepsEveryElement) {
  constexpr std::uint64_t n = 100'000;
  Deque d(1024);
  testing::Hits hits(n);
  std::atomic<bool> done{false};
  std::vector<std::thread> thieves;
  for (int t = 0; t < 2; ++t)
    thieves.emplace_back([&] {
      while (true) {
        const bool finished = done.load();
        const auto s = d.steal();
        if (s.status == Deque::Steal::taken) hits.add(s.value);
        if (finished && s.status == Deque::Steal::empty) break;
      }
    });
  for (std::uint64_t i = 0; i < n; ++i) {
    while (!d.push(i))
      if (const auto v = d.pop()) hits.add(*v);
    if (i % 3 == 0)
      if (const auto v = d.pop()) hits.add(*v);
  }
  while (const auto v = d.pop()) hits.add(*v);
  done = true;
  for (auto& t : thieves) t.join();
  EXPECT_EQ(hits.wrong(), 0u);
}

TEST(RangeSlot, FrontAndBackSplit) {
  RangeSlot slot;
  slot.reset({10, 30});
  EXPECT_EQ(slot.remaining(), 20u);
  const ItemRange a = slot.take_front([](std::size_t) { return 5; });
  EXPECT_EQ(a.begin, 10u);
  EXPECT_EQ(a.end, 15u);
  const ItemRange b = slot.take_back([](std::size_t remaining) { return remaining / 2; });
  EXPECT_EQ(b.begin, 23u);
  EXPECT_EQ(b.end, 30u);
  const ItemRange c = slot.take_front([](std::size_t) { return 0; });  // at least one
  EXPECT_EQ(c.size(), 1u);
  const ItemRange d = slot.take_front([](std::size_t) { return 1000; });  // at most what is left
  EXPECT_EQ(d.begin, 16u);
  EXPECT_EQ(d.end, 23u);
  EXPECT_TRUE(slot.take_front([](std::size_t) { return 1; }).empty());
  EXPECT_TRUE(slot.take_all().empty());
}

TEST(RangeSlot, ConcurrentOwnerAndThievesCoverEachItemOnce) {
  constexpr std::size_t n = 300'000;
  RangeSlot slot;
  slot.reset({0, n});
  testing::Hits hits(n);
  std::vector<std::thread> thieves;
  for (int t = 0; t < 3; ++t)
    thieves.emplace_back([&] {
      while (slot.remaining() > 0) {
        const ItemRange r = slot.take_back([](std::size_t remaining) { return (remaining + 7) / 8; });
        hits.add(r.begin, r.end);
      }
    });
  for (ItemRange r; !(r = slot.take_front([](std::size_t) { return 3; })).empty();) hits.add(r.begin, r.end);
  for (auto& t : thieves) t.join();
  EXPECT_EQ(hits.wrong(), 0u);
}

}  // namespace
}  // namespace sextant::scheduler::detail
