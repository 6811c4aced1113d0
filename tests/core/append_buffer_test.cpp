#include "core/append_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace sextant {
namespace {

// Grows from empty to megabytes (where glibc moves blocks by remapping), in uneven steps,
// with writes through reserve_more/commit and append; contents checked against a std::vector.
TEST(AppendBuffer, GrowsPastEveryStorageKindAndKeepsItsContents) {
  AppendBuffer<std::uint64_t> buffer;
  std::vector<std::uint64_t> expected;
  std::uint64_t next = 1;
  for (std::size_t step = 1; expected.size() < (std::size_t{3} << 20) / 8 * 3; step = step * 3 / 2 + 1) {
    std::uint64_t* room = buffer.reserve_more(step);
    const std::size_t kept = step / 2 + 1;
    for (std::size_t i = 0; i < step; ++i) room[i] = next + i;  // written, only `kept` committed
    buffer.commit(kept);
    for (std::size_t i = 0; i < kept; ++i) expected.push_back(next + i);
    next += step;
    const std::vector<std::uint64_t> more = {next, next + 1};
    buffer.append(more);
    expected.insert(expected.end(), more.begin(), more.end());
    next += 2;
  }
  ASSERT_EQ(buffer.size(), expected.size());
  EXPECT_TRUE(std::equal(buffer.begin(), buffer.end(), expected.begin()));

  AppendBuffer<std::uint64_t> copy(buffer);
  buffer.erase_if([](std::uint64_t v) { return v % 3 == 0; });
  std::erase_if(expected, [](std::uint64_t v) { return v % 3 == 0; });
  EXPECT_TRUE(std::equal(buffer.begin(), buffer.end(), expected.begin(), expected.end()));
  EXPECT_GT(copy.size(), buffer.size());  // the copy is independent

  AppendBuffer<std::uint64_t> moved(std::move(copy));
  EXPECT_TRUE(copy.empty());
  copy = moved;  // copy-assign into a moved-from buffer
  EXPECT_EQ(copy.size(), moved.size());
  moved.release();
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(moved.begin(), nullptr);
}

TEST(AppendBuffer, EmptyBuffers) {
  AppendBuffer<int> a;
  a.append({});
  EXPECT_TRUE(a.empty());
  AppendBuffer<int> b(a);
  EXPECT_TRUE(b.empty());
  a.erase_if([](int) { return true; });
  EXPECT_EQ(a.size(), 0u);
}

}  // namespace
}  // namespace sextant
